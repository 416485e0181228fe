import { Long, ObjectId } from 'mongodb'
import type { Document } from '../document.js'
import { heldDouble } from '../numbers/numeric-type.js'
import { decodeHeld } from './bson-codec.js'
import { int32, valueSize } from './element-layout.js'

/** Scratch space to read a little-endian double without allocating. */
const SCRATCH = new Float64Array(1)
const SCRATCH_BYTES = new Uint8Array(SCRATCH.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const UTF8 = new TextDecoder('utf-8')

/**
 * Reads chosen top-level fields straight from a document's BSON bytes, without decoding the rest:
 * a sort or a simple filter needs one or two fields of each document it scans, while decoding a
 * whole document costs as much as all of its fields. Each field read is decoded exactly as
 * `decodeDocument` would decode it, numbers held apart by type (numeric-type.ts): the common scalar
 * types directly, every other type (embedded documents, arrays, Decimal128, Binary, ...) by
 * decoding that one element.
 */
export class BsonFieldReader {
  readonly #names: string[]
  readonly #encoded: Uint8Array[]

  constructor(fields: Iterable<string>) {
    this.#names = [...new Set(fields)]
    this.#encoded = this.#names.map((name) => new TextEncoder().encode(name))
  }

  get fields(): readonly string[] {
    return this.#names
  }

  /**
   * A document holding the chosen fields that `bytes` has, in the order the document stores them
   * (a missing field stays missing, as in the full decode). The walk stops once all are found.
   */
  read(bytes: Uint8Array): Document {
    const out: Document = {}
    const wanted = this.#names.length
    let found = 0
    let at = 4
    const end = bytes.length - 1
    while (at < end && found < wanted) {
      const type = bytes[at]!
      const nameStart = at + 1
      let nameEnd = nameStart
      while (bytes[nameEnd] !== 0) nameEnd++
      const valueStart = nameEnd + 1
      const size = valueSize(type, bytes, valueStart)
      const which = this.#match(bytes, nameStart, nameEnd)
      if (which >= 0) {
        setField(out, this.#names[which]!, decodeValue(type, bytes, at, nameEnd, valueStart, size))
        found++
      }
      at = valueStart + size
    }
    return out
  }

  #match(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start
    for (let i = 0; i < this.#encoded.length; i++) {
      const name = this.#encoded[i]!
      if (name.length !== length) continue
      let same = true
      for (let j = 0; j < length; j++) {
        if (bytes[start + j] !== name[j]) {
          same = false
          break
        }
      }
      if (same) return i
    }
    return -1
  }
}

/** `__proto__` is an own field like any other (as bson's deserializer makes it), never the prototype. */
function setField(out: Document, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true })
  else out[name] = value
}

function decodeValue(type: number, bytes: Uint8Array, elementStart: number, nameEnd: number, valueStart: number, size: number): unknown {
  switch (type) {
    case 0x01:
      return heldDouble(readDouble(bytes, valueStart))
    case 0x02:
      return UTF8.decode(bytes.subarray(valueStart + 4, valueStart + size - 1))
    case 0x07:
      // A copy of the 12 bytes: bson 6 (the peer range) has no (buffer, offset) constructor, and the
      // stored bytes may be reused by the storage after the scan moves on.
      return new ObjectId(bytes.slice(valueStart, valueStart + 12))
    case 0x08:
      return bytes[valueStart] === 1
    case 0x09: {
      // As bson's Long.toNumber: the high word signed, the low one unsigned.
      const low = int32(bytes, valueStart) >>> 0
      const high = int32(bytes, valueStart + 4)
      return new Date(high * 4294967296 + low)
    }
    case 0x0a:
      return null
    case 0x10:
      return int32(bytes, valueStart)
    case 0x12:
      return new Long(int32(bytes, valueStart), int32(bytes, valueStart + 4))
  }
  return decodeElement(bytes, elementStart, nameEnd, valueStart + size)
}

function readDouble(bytes: Uint8Array, at: number): number {
  for (let i = 0; i < 8; i++) SCRATCH_BYTES[LITTLE_ENDIAN ? i : 7 - i] = bytes[at + i]!
  return SCRATCH[0]!
}

/** Any other type: that one element, renamed `""`, decoded on its own as a document would be. */
function decodeElement(bytes: Uint8Array, elementStart: number, nameEnd: number, elementEnd: number): unknown {
  const valueLength = elementEnd - (nameEnd + 1)
  const single = new Uint8Array(4 + 1 + 1 + valueLength + 1)
  const view = new DataView(single.buffer)
  view.setInt32(0, single.length, true)
  single[4] = bytes[elementStart]!
  single[5] = 0
  single.set(bytes.subarray(nameEnd + 1, elementEnd), 6)
  single[single.length - 1] = 0
  return decodeHeld(single)['']
}
