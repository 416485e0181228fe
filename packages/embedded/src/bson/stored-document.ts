import type { Document } from '../document.js'
import { decodeDocument, encodeDocument } from './bson-codec.js'
import { valueSize } from './element-layout.js'

/** A document as a write stores it: its bytes, and the engine's own copy decoded from them. */
export interface StoredDocument {
  bytes: Uint8Array
  doc: Document
}

/**
 * A caller's document as the engine stores it, `_id` first (MongoDB's order, whatever the caller's:
 * the driver adds a generated `_id` last), encoded once: the `_id` element is moved to the front of
 * the bytes rather than the document encoded again. Through BSON like a wire round-trip, so
 * `undefined` is stored as null and no caller object is aliased. A document without an `_id` keeps
 * the order it has.
 */
export function storedDocument(doc: Document): StoredDocument {
  const bytes = withIdFirst(encodeDocument(doc))
  return { bytes, doc: decodeDocument(bytes) }
}

/** BSON bytes with their top-level `_id` element moved to the front (the same bytes when it is there already, or absent). */
export function withIdFirst(bytes: Uint8Array): Uint8Array {
  const end = bytes.length - 1
  let at = 4
  while (at < end) {
    const start = at
    const type = bytes[at]!
    at++
    const isId = bytes[at] === 0x5f && bytes[at + 1] === 0x69 && bytes[at + 2] === 0x64 && bytes[at + 3] === 0
    while (bytes[at] !== 0) at++
    at++
    at += valueSize(type, bytes, at)
    if (!isId) continue
    if (start === 4) return bytes
    const moved = new Uint8Array(bytes.length)
    moved.set(bytes.subarray(0, 4))
    moved.set(bytes.subarray(start, at), 4)
    moved.set(bytes.subarray(4, start), 4 + at - start)
    moved.set(bytes.subarray(at), at)
    return moved
  }
  return bytes
}
