import type { Document } from '../driver-db.js'
import { decodeDocument } from './bson-codec.js'
import type { Matcher } from './compile-filter.js'
import type { Deadline } from './deadline.js'
import type { CollectionStorage } from './persist/storage.js'
import { toValueKey } from './value-key.js'

/**
 * Lazily yields the stored documents matching `filter`, decoding one at a time, so memory
 * does not grow with the collection. When the filter pins `_id` (a value or an `$in` list) it
 * reads only those keys instead of walking the collection, the engine's only index lookup.
 */
export function* scanDocuments(
  storage: CollectionStorage,
  filter: Document,
  matches: Matcher,
  deadline: Deadline
): Generator<Document, undefined> {
  const keys = idKeysOf(filter)
  if (keys) {
    for (const key of keys) {
      const bytes = storage.get(key)
      if (bytes === undefined) continue
      const doc = decodeDocument(bytes)
      if (matches(doc)) yield doc
    }
    return undefined
  }
  const walk = storage.scan()
  try {
    for (let next = walk.next(); !next.done; next = walk.next()) {
      deadline.tick()
      const doc = decodeDocument(next.value)
      if (matches(doc)) yield doc
    }
  } finally {
    walk.return?.()
  }
  return undefined
}

/** The storage keys a filter restricts `_id` to, or undefined when a full scan is needed. */
function idKeysOf(filter: Document): string[] | undefined {
  if (!Object.hasOwn(filter, '_id')) return undefined
  const id = filter['_id']
  if (isExactValue(id)) return [toValueKey(id)]
  if (isOperatorObject(id) && Object.keys(id).length === 1 && Array.isArray(id['$in'])) {
    const values: unknown[] = id['$in']
    if (values.every(isExactValue)) return [...new Set(values.map(toValueKey))]
  }
  return undefined
}

/** A value matched by equality alone: not an operator object, a regex, null or an array. */
function isExactValue(value: unknown): boolean {
  if (value === null || value === undefined || value instanceof RegExp || Array.isArray(value)) return false
  if ((value as { _bsontype?: unknown })._bsontype === 'BSONRegExp') return false
  return !isOperatorObject(value)
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false
  return Object.keys(value).some((k) => k.startsWith('$'))
}
