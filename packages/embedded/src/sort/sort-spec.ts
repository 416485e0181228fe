import { type Document, isNonArrayObject } from '../document.js'
import { badValueError } from '../errors.js'
import type { SortSpec } from './sort-documents.js'

/** Validates a sort specification: a non-empty object of 1 / -1 (`$meta` sorts are refused). */
export function toSortSpec(value: unknown): SortSpec {
  if (!isNonArrayObject(value) || Object.keys(value).length === 0) {
    throw badValueError('$sort key specification must be a non-empty object')
  }
  const spec: SortSpec = {}
  for (const [path, dir] of Object.entries(value)) {
    const number = Number(dir)
    if (number !== 1 && number !== -1) {
      throw badValueError(`$sort key ordering must be 1 (for ascending) or -1 (for descending); got ${JSON.stringify(dir)} for '${path}'`)
    }
    spec[path] = number
  }
  return spec
}

/**
 * The `sort` option of find and the findOneAnd* methods: none (absent or empty) or a sort
 * specification. `$natural: 1` is the engine's scan order anyway, so it means no sort; other
 * `$natural` orders are refused.
 */
export function toFindSort(sort: Document | undefined): SortSpec | undefined {
  if (sort === undefined || sort === null || (typeof sort === 'object' && Object.keys(sort).length === 0)) return undefined
  if (typeof sort === 'object' && Object.hasOwn(sort, '$natural')) {
    if (Object.keys(sort).length === 1 && Number(sort['$natural']) === 1) return undefined
    throw badValueError('$natural sort orders other than { $natural: 1 } are not supported by the embedded engine')
  }
  return toSortSpec(sort)
}
