/**
 * The layout of BSON elements (the BSON specification's), for the code that walks stored bytes
 * without decoding them: the field reader (bson-field-reader.ts) and the scan for whole doubles
 * (whole-doubles.ts).
 */
export function int32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)
}

function cstringEnd(bytes: Uint8Array, at: number): number {
  while (bytes[at] !== 0) at++
  return at + 1
}

/** Bytes taken by an element's value of BSON `type` starting at `at` (the BSON spec's layouts). */
export function valueSize(type: number, bytes: Uint8Array, at: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // UTC datetime
    case 0x11: // timestamp
    case 0x12: // int64
      return 8
    case 0x02: // string
    case 0x0d: // JavaScript code
    case 0x0e: // symbol
      return 4 + int32(bytes, at)
    case 0x03: // embedded document
    case 0x04: // array
    case 0x0f: // code with scope
      return int32(bytes, at)
    case 0x05: // binary: length, subtype, bytes
      return 5 + int32(bytes, at)
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // MaxKey
    case 0xff: // MinKey
      return 0
    case 0x07: // ObjectId
      return 12
    case 0x08: // boolean
      return 1
    case 0x0b: // regular expression: two cstrings
      return cstringEnd(bytes, cstringEnd(bytes, at)) - at
    case 0x0c: // DBPointer: string, then 12 bytes
      return 4 + int32(bytes, at) + 12
    case 0x10: // int32
      return 4
    case 0x13: // decimal128
      return 16
  }
  throw new Error(`BSON element of unknown type 0x${type.toString(16)}`)
}
