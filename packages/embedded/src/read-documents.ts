import { Query } from 'mingo/query'
import { checkFieldPaths } from './check-field-path.js'
import { toCollation } from './collation.js'
import { compileFilter, filterCollation } from './compile-filter.js'
import type { Deadline } from './deadline.js'
import type { Document, FindOptions } from './document.js'
import { asServerError } from './errors.js'
import { fieldsToRead } from './fields-to-read.js'
import { MINGO_OPTIONS } from './mingo-options.js'
import type { CollectionStorage } from './persist/storage.js'
import { decodeStored, type StoredDocument, scanStored } from './scan-documents.js'
import { SortedCollector, type SortSpec, type ValueOrder } from './sort-documents.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES } from './sort-memory-limit.js'
import { toFindSort } from './sort-spec.js'

/** Where a read finds its documents: the storage, and the index lookups (collection-core.ts). */
export interface ReadSource {
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
  let found: Iterable<StoredDocument> = scanStored(source.storage, collated ? undefined : source.pointKeys(filter), matches, deadline, fieldsToRead(filter, sort))
  if (sort) found = sortStored(found, sort, skip + limit, { memoryLimitBytes: sortMemoryLimitBytes, order: collation?.compareValues })
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

/** The top `keep` matches in sort order, holding their bytes (not decoded documents) meanwhile. */
function sortStored(found: Iterable<StoredDocument>, sort: SortSpec, keep: number, options: { memoryLimitBytes: number, order: ValueOrder | undefined }): StoredDocument[] {
  const collector = new SortedCollector<Uint8Array>(sort, keep, options)
  for (const { doc, bytes } of found) collector.add(doc, bytes, bytes.byteLength)
  return collector.result().map((bytes) => ({ bytes, doc: {}, whole: false }))
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
