import { decodeDocument } from '../bson/bson-codec.js'
import type { BsonFieldReader } from '../bson/bson-field-reader.js'
import type { Document } from '../document.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Paced, type Pause, unpaced } from '../pace/pause.js'
import type { Matcher } from '../query/compile-filter.js'
import { pooledCopy } from '../storage/pooled-copy.js'
import type { CollectionStorage } from '../storage/storage.js'

/**
 * A stored document a scan matched: its BSON bytes, and `doc`, which holds at least the fields
 * the scan's reader asked for (`whole`: the document decoded in full).
 */
export interface StoredDocument {
  bytes: Uint8Array
  doc: Document
  whole: boolean
}

/** The document in full: decoded now unless the scan already had to. */
export function decodeStored(found: StoredDocument): Document {
  return found.whole ? found.doc : decodeDocument(found.bytes)
}

/**
 * Lazily yields the stored documents matching `matches`, one at a time, so memory does not grow
 * with the collection. With `keys` (from the planner: the filter pins `_id` or an index narrows
 * it) it reads only those documents instead of walking the collection.
 *
 * With a `reader` (fields-to-read.ts), `matches` runs on the fields the reader takes straight
 * from the bytes, and nothing is decoded in full here: the caller decodes only what it returns.
 * A walk over the collection then reads each document where storage holds it (`visit`) and
 * copies only the matches `wanted` accepts (by default every match): a top-k sort refuses those
 * that cannot make its cut. Without a reader, each document is decoded in full to be matched.
 *
 * The first `unread` keys are passed over without reading their documents: a caller whose filter
 * matches every key (a page of an unfiltered walk of an index) skips them that way.
 *
 * Whenever the deadline's slice is used up it yields PAUSE (pause.ts), also between two documents
 * that do not match: a walk past many non-matches lets the event loop run too. On lmdb a pause
 * falls between two of storage's short read transactions, never inside one.
 */
export function* scanStored(
  storage: CollectionStorage,
  keys: Iterable<string> | undefined,
  matches: Matcher,
  deadline: Deadline,
  reader: BsonFieldReader | undefined,
  wanted?: (doc: Document) => boolean,
  unread = 0
): Paced<StoredDocument> {
  if (keys) {
    let passed = 0
    for (const key of keys) {
      // An index walk can be long too (a sorted walk past many non-matches).
      deadline.tick()
      if (deadline.due()) yield PAUSE
      if (observed !== undefined) observed.keysExamined++
      if (passed < unread) {
        passed++
        continue
      }
      const bytes = storage.get(key)
      if (bytes === undefined) continue
      const found = inspect(bytes, matches, reader)
      if (found) yield found
    }
    return undefined
  }
  if (reader) {
    const fields = reader
    for (const [, found] of iterate(
      storage.visit((bytes): StoredDocument | Pause | undefined => {
        deadline.tick()
        examinedCount++
        if (observed !== undefined) observed.docsExamined++
        const doc = fields.read(bytes)
        if (!matches(doc) || (wanted !== undefined && !wanted(doc))) return deadline.due() ? PAUSE : undefined
        return { bytes: pooledCopy(bytes), doc, whole: false }
      })
    )) {
      yield found
      if (found !== PAUSE && deadline.due()) yield PAUSE
    }
    return undefined
  }
  const walk = storage.scan()
  try {
    for (let next = walk.next(); !next.done; next = walk.next()) {
      deadline.tick()
      const found = inspect(next.value, matches, reader)
      if (found) yield found
      if (deadline.due()) yield PAUSE
    }
  } finally {
    walk.return?.()
  }
  return undefined
}

/** An iterator as a generator, closed (`return`) when the caller stops early. */
export function* iterate<T>(walk: Iterator<T, undefined>): Generator<T, undefined> {
  try {
    for (let next = walk.next(); !next.done; next = walk.next()) yield next.value
  } finally {
    walk.return?.()
  }
  return undefined
}

let examinedCount = 0

/** What one read examined: the documents it read from storage (or a field column) and matched, the index keys it walked. */
export interface ReadStats {
  docsExamined: number
  keysExamined: number
}

/** The read running now, when its cursor is observed (explain's executionStats); undefined otherwise. */
let observed: ReadStats | undefined

/**
 * Runs one step of a read with what it examines also counted in `stats`. A read's steps are
 * synchronous (it pauses between them), so the reads of other clients, which run between those
 * steps, never count in another read's stats.
 */
export function observing<T>(stats: ReadStats, step: () => T): T {
  const outer = observed
  observed = stats
  try {
    return step()
  } finally {
    observed = outer
  }
}

/** Counts documents examined elsewhere than in a scan (field-columns.ts: from memory). */
export function countExamined(count: number): void {
  examinedCount += count
  if (observed !== undefined) observed.docsExamined += count
}

/**
 * Stored documents a scan has examined (read from storage and matched) since the process started,
 * decoded in full or not. Lets tests prove that an index narrows what a read looks at.
 */
export function documentsExamined(): number {
  return examinedCount
}

function inspect(bytes: Uint8Array, matches: Matcher, reader: BsonFieldReader | undefined): StoredDocument | undefined {
  examinedCount++
  if (observed !== undefined) observed.docsExamined++
  const whole = reader === undefined
  const doc = whole ? decodeDocument(bytes) : reader.read(bytes)
  return matches(doc) ? { bytes, doc, whole } : undefined
}

/**
 * scanStored, each match decoded in full and without pauses: for writes, which collect what they
 * change in one stretch inside their queue.
 */
export function* scanDocuments(
  storage: CollectionStorage,
  keys: Iterable<string> | undefined,
  matches: Matcher,
  deadline: Deadline,
  reader?: BsonFieldReader
): Generator<Document, undefined> {
  for (const found of unpaced(scanStored(storage, keys, matches, deadline, reader))) yield decodeStored(found)
  return undefined
}
