import { int32, valueSize } from './element-layout.js'

/** Scratch space to read a little-endian double without allocating. */
const SCRATCH = new Float64Array(1)
const SCRATCH_BYTES = new Uint8Array(SCRATCH.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/**
 * Whether a stored document holds a double whose value a JS number would give back as an int32
 * (10.0, 0.0): BSON's decoder answers such a double as the number 10, which encodes again as an
 * int32, so the engine holds it as a `Double` instead (numeric-type.ts), and decodes the document
 * the slower way only when this finds one. One pass over the bytes, nothing allocated: BSON writes
 * a document depth first, so its elements and the ends of its embedded documents come one after
 * the other. Bytes that do not parse answer true: the full decoder then reports what is wrong.
 */
export function holdsWholeDouble(bytes: Uint8Array): boolean {
  const end = bytes.length
  let at = 4
  while (at < end) {
    const type = bytes[at]!
    at++
    // The end of a document (or of an embedded one): its parent's elements go on.
    if (type === 0) continue
    while (at < end && bytes[at] !== 0) at++
    at++
    switch (type) {
      case 0x01:
        if (at + 8 > end || isWholeInt32Double(bytes, at)) return true
        at += 8
        break
      case 0x03:
      case 0x04:
        // Into the embedded document: past its size, its elements are next.
        at += 4
        break
      case 0x10:
        at += 4
        break
      case 0x02:
        at += 4 + int32(bytes, at)
        break
      default: {
        const size = sizeOf(type, bytes, at)
        if (!(size >= 0)) return true
        at += size
      }
    }
  }
  return false
}

/** The size of any other element's value; NaN when its type is unknown. */
function sizeOf(type: number, bytes: Uint8Array, at: number): number {
  try {
    return valueSize(type, bytes, at)
  } catch {
    return Number.NaN
  }
}

function isWholeInt32Double(bytes: Uint8Array, at: number): boolean {
  // A whole number below 2^31 has at least 22 trailing zero bits of mantissa, so its two lowest bytes
  // are zero: most doubles with a fraction are told apart by them, without reading the double.
  if (bytes[at] !== 0 || bytes[at + 1] !== 0) return false
  for (let i = 0; i < 8; i++) SCRATCH_BYTES[LITTLE_ENDIAN ? i : 7 - i] = bytes[at + i]!
  const value = SCRATCH[0]!
  return Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 && !Object.is(value, -0)
}
