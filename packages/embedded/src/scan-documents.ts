import { decodeDocument } from './bson-codec.js'
import type { Matcher } from './compile-filter.js'
import type { Deadline } from './deadline.js'
import type { Document } from './document.js'
import type { CollectionStorage } from './persist/storage.js'

/**
 * Lazily yields the stored documents matching `matches`, decoding one at a time, so memory
 * does not grow with the collection. With `keys` (from the planner: the filter pins `_id` or
 * an index narrows it) it reads only those documents instead of walking the collection.
 */
export function* scanDocuments(
  storage: CollectionStorage,
  keys: Iterable<string> | undefined,
  matches: Matcher,
  deadline: Deadline
): Generator<Document, undefined> {
  if (keys) {
    for (const key of keys) {
      // An index walk can be long too (a sorted walk past many non-matches).
      deadline.tick()
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
