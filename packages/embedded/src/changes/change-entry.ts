import { decodeDocument, encodeDocument } from '../bson/bson-codec.js'
import type { Document } from '../document.js'

export type ChangeOperation = 'insert' | 'update' | 'replace' | 'delete'

/** What changed a collection's or a database's definition rather than a document. */
export type DefinitionOperation = 'create' | 'drop' | 'rename' | 'dropDatabase' | 'createIndexes' | 'dropIndexes' | 'modify'

/**
 * One change as the log keeps it: what happened (`o`), to which collection (`c`, its storage
 * name), and the document after (`a`, absent for a delete) and before it (`b`, absent for an
 * insert). Both images are kept: a subscriber's scope is tested on both, so a document leaving
 * it is told as a delete and one entering it as an insert (the router's `_events`).
 */
export interface ChangeEntry {
  o: ChangeOperation | DefinitionOperation
  /** The collection's storage name; for `dropDatabase`, the database's name. */
  c: string
  a?: Document
  b?: Document
  /** `rename`: the namespace the collection took, `<db>.<collection>`. */
  t?: string
  /** What a definition change did, as its event's `operationDescription` tells (indexes, a view, options). */
  d?: Document
}

/** The entry of a definition change (no document bytes to embed: encoded plainly). */
export function encodeDefinitionChange(operation: DefinitionOperation, collection: string, fields: { t?: string, d?: Document } = {}): Uint8Array {
  return encodeDocument({ o: operation, c: collection, ...fields })
}

/**
 * The BSON of an entry, built around the documents' stored bytes as they are (embedded as
 * sub-documents byte for byte): a write already holds them, and encoding them again would be
 * most of what logging a change costs.
 */
export function encodeChange(operation: ChangeOperation, collection: string, after: Uint8Array | undefined, before: Uint8Array | undefined): Uint8Array {
  const parts: Uint8Array[] = [stringElement('o', operation), stringElement('c', collection)]
  if (after) parts.push(AFTER_HEAD, after)
  if (before) parts.push(BEFORE_HEAD, before)
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

/** The heads of the embedded `a` and `b` documents (type 0x03, the name, its NUL). */
const AFTER_HEAD = Uint8Array.of(0x03, 0x61, 0)
const BEFORE_HEAD = Uint8Array.of(0x03, 0x62, 0)

/** String elements made so far: an operation and a collection's name repeat from one write to the next. */
const STRING_ELEMENTS = new Map<string, Uint8Array>()

function stringElement(name: string, value: string): Uint8Array {
  const key = `${name}\0${value}`
  let element = STRING_ELEMENTS.get(key)
  if (element === undefined) {
    element = newStringElement(name, value)
    // Collection names are few; a bound all the same, for an engine whose names keep changing.
    if (STRING_ELEMENTS.size >= 4096) STRING_ELEMENTS.clear()
    STRING_ELEMENTS.set(key, element)
  }
  return element
}

function newStringElement(name: string, value: string): Uint8Array {
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
