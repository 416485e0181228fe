import { Query } from 'mingo/query'
import type { BsonFieldReader } from '../bson/bson-field-reader.js'
import { checkFieldPaths } from '../check-field-path.js'
import { toCollation } from '../collation/collation.js'
import type { Document, FindOptions } from '../document.js'
import { asServerError } from '../errors.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { compileFilter, filterCollation, type Matcher } from '../query/compile-filter.js'
import { SortedCollector, type SortSpec, type ValueOrder } from '../sort/sort-documents.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES } from '../sort/sort-memory-limit.js'
import { toFindSort } from '../sort/sort-spec.js'
import { exactCopy } from '../storage/pooled-copy.js'
import type { CollectionStorage } from '../storage/storage.js'
import type { Deadline } from './deadline.js'
import { type ColumnEntry, fieldColumn } from './field-columns.js'
import { fieldsToRead } from './fields-to-read.js'
import { countExamined, decodeStored, type StoredDocument, scanStored } from './scan-documents.js'

/** Where a read finds its documents: the storage, and the index lookups (collection-core.ts). */
interface ReadSource {
  readonly storage: CollectionStorage
  pointKeys(filter: Document): Iterable<string> | undefined
}

/**
 * The find pipeline: filter, then sort, skip, limit, projection. Unsorted reads stream;
 * sorted reads collect, keeping only the top skip + limit when a limit is given, within
 * `sortMemoryLimitBytes`. Filter and sort read only the fields they need from the stored bytes
 * (fields-to-read.ts) when they can: a document is decoded in full only to be returned.
 */
export function* readDocuments(
  source: ReadSource,
  filter: Document,
  options: FindOptions,
  deadline: Deadline,
  sortMemoryLimitBytes = DEFAULT_SORT_MEMORY_LIMIT_BYTES
): Generator<Document, undefined> {
  const collation = toCollation(options.collation)
  const collated = filterCollation(filter, collation)
  const matches = compileFilter(filter, collated)
  const skip = Math.max(0, options.skip ?? 0)
  const limit = Math.abs(options.limit ?? 0) || Number.POSITIVE_INFINITY
  const project = compileProjection(options.projection)
  const sort = toFindSort(options.sort)
  const keys = collated ? undefined : source.pointKeys(filter)
  const reader = fieldsToRead(filter, sort)
  const found: Iterable<StoredDocument> = sort
    ? sortStored(source.storage, keys, matches, deadline, reader, sort, skip + limit, { memoryLimitBytes: sortMemoryLimitBytes, order: collation?.compareValues })
    : scanStored(source.storage, keys, matches, deadline, reader)
  let skipped = 0
  let returned = 0
  for (const stored of found) {
    // Skipped documents are never decoded.
    if (skipped < skip) {
      skipped++
      continue
    }
    yield project(decodeStored(stored))
    // Stop before pulling (and decoding) one document more than needed.
    if (++returned >= limit) break
  }
  return undefined
}

/**
 * The top `keep` matches in sort order, holding their bytes (not decoded documents) meanwhile.
 * The scan copies only the matches that can still make the cut.
 */
function sortStored(
  storage: CollectionStorage,
  keys: Iterable<string> | undefined,
  matches: Matcher,
  deadline: Deadline,
  reader: BsonFieldReader | undefined,
  sort: SortSpec,
  keep: number,
  options: { memoryLimitBytes: number, order: ValueOrder | undefined }
): StoredDocument[] {
  const column = keys === undefined && reader !== undefined ? fieldColumn(storage, reader, deadline) : undefined
  if (column !== undefined) return sortColumn(storage, column, matches, deadline, sort, keep, options)
  const collector = new SortedCollector<Uint8Array>(sort, keep, options)
  const wanted = (doc: Document) => collector.competes(doc)
  for (const { doc, bytes } of scanStored(storage, keys, matches, deadline, reader, wanted)) collector.offer(doc, () => exactCopy(bytes), () => bytes.byteLength)
  return collector.result().map((bytes) => ({ bytes, doc: {}, whole: false }))
}

/**
 * sortStored over a collection's field column (field-columns.ts): the top `keep` found in memory,
 * then only those read from storage. All in one synchronous pass: no write runs in between.
 */
function sortColumn(
  storage: CollectionStorage,
  column: readonly ColumnEntry[],
  matches: Matcher,
  deadline: Deadline,
  sort: SortSpec,
  keep: number,
  options: { memoryLimitBytes: number, order: ValueOrder | undefined }
): StoredDocument[] {
  const collector = new SortedCollector<string>(sort, keep, options)
  for (const entry of column) {
    deadline.tick()
    if (matches(entry.doc)) collector.offer(entry.doc, () => entry.key, () => entry.size)
  }
  countExamined(column.length)
  const found: StoredDocument[] = []
  for (const key of collector.result()) {
    const bytes = storage.get(key)
    if (bytes !== undefined) found.push({ bytes, doc: {}, whole: false })
  }
  return found
}

export function compileProjection(projection: Document | undefined): (doc: Document) => Document {
  if (!projection || Object.keys(projection).length === 0) return (doc) => doc
  checkFieldPaths(projection)
  const query = new Query({}, MINGO_OPTIONS)
  return (doc) => {
    try {
      const projected = query.find<Document>([doc], projection).next() as Document
      // The server keeps `_id` first; mingo appends the fields it includes before it.
      if (!Object.hasOwn(projected, '_id')) return projected
      const { _id, ...rest } = projected
      return { _id, ...rest }
    } catch (error) {
      throw asServerError(error)
    }
  }
}
