import { Query } from 'mingo/query'
import { checkFieldPaths } from './check-field-path.js'
import { toCollation } from './collation.js'
import { compileFilter, filterCollation } from './compile-filter.js'
import type { Deadline } from './deadline.js'
import type { Document, FindOptions } from './document.js'
import { asServerError } from './errors.js'
import { MINGO_OPTIONS } from './mingo-options.js'
import type { CollectionStorage } from './persist/storage.js'
import { scanDocuments } from './scan-documents.js'
import { SortedCollector } from './sort-documents.js'
import { toFindSort } from './sort-spec.js'

/** Where a read finds its documents: the storage, and the index lookups (collection-core.ts). */
export interface ReadSource {
  readonly storage: CollectionStorage
  pointKeys(filter: Document): Iterable<string> | undefined
}

/**
 * The find pipeline: filter, then sort, skip, limit, projection. Unsorted reads stream;
 * sorted reads collect, keeping only the top skip + limit when a limit is given.
 */
export function* readDocuments(
  source: ReadSource,
  filter: Document,
  options: FindOptions,
  deadline: Deadline
): Generator<Document, undefined> {
  const collation = toCollation(options.collation)
  const collated = filterCollation(filter, collation)
  const matches = compileFilter(filter, collated)
  const skip = Math.max(0, options.skip ?? 0)
  const limit = Math.abs(options.limit ?? 0) || Number.POSITIVE_INFINITY
  const project = compileProjection(options.projection)
  const sort = toFindSort(options.sort)
  let found = scanDocuments(source.storage, collated ? undefined : source.pointKeys(filter), matches, deadline)
  if (sort) {
    const collector = new SortedCollector(sort, skip + limit, collation?.compareValues)
    for (const doc of found) collector.add(doc)
    found = collector.result()[Symbol.iterator]() as Generator<Document, undefined>
  }
  let skipped = 0
  let returned = 0
  for (const doc of found) {
    if (skipped < skip) {
      skipped++
      continue
    }
    yield project(doc)
    // Stop before pulling (and decoding) one document more than needed.
    if (++returned >= limit) break
  }
  return undefined
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
