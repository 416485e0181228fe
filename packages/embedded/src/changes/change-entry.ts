import { decodeDocument } from '../bson/bson-codec.js'
import type { Document } from '../document.js'

export type ChangeOperation = 'insert' | 'update' | 'replace' | 'delete'

/**
 * One change as the log keeps it: what happened (`o`), to which collection (`c`, its storage
 * name), and the document after (`a`, absent for a delete) and before it (`b`, absent for an
 * insert). Both images are kept: a subscriber's scope is tested on both, so a document leaving
 * it is told as a delete and one entering it as an insert (the router's `_events`).
 */
export interface ChangeEntry {
  o: ChangeOperation
  c: string
  a?: Document
  b?: Document
}

/**
 * The BSON of an entry, built around the documents' stored bytes as they are (embedded as
 * sub-documents byte for byte): a write already holds them, and encoding them again would be
 * most of what logging a change costs.
 */
export function encodeChange(operation: ChangeOperation, collection: string, after: Uint8Array | undefined, before: Uint8Array | undefined): Uint8Array {
  const parts: Uint8Array[] = [stringElement('o', operation), stringElement('c', collection)]
  if (after) parts.push(Buffer.from([0x03, 0x61, 0]), after)
  if (before) parts.push(Buffer.from([0x03, 0x62, 0]), before)
  const size = 4 + parts.reduce((sum, part) => sum + part.length, 0) + 1
  const bytes = Buffer.alloc(size)
  bytes.writeInt32LE(size, 0)
  let at = 4
  for (const part of parts) {
    bytes.set(part, at)
    at += part.length
  }
  return bytes
}

function stringElement(name: string, value: string): Uint8Array {
  const text = Buffer.from(value, 'utf8')
  const element = Buffer.alloc(1 + name.length + 1 + 4 + text.length + 1)
  element[0] = 0x02
  element.write(name, 1, 'latin1')
  element.writeInt32LE(text.length + 1, name.length + 2)
  element.set(text, name.length + 6)
  return element
}

export function decodeChange(bytes: Uint8Array): ChangeEntry {
  return decodeDocument(bytes) as unknown as ChangeEntry
}
