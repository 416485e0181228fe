import { isDeepStrictEqual } from 'node:util'
import { isRecord } from '../is-record.js'

/** MongoDB's order of types (null, numbers, text, objects, arrays, booleans), for the JSON values of a wire document. */
function rankOf(value: unknown): number {
  if (value === null || value === undefined) return 1
  if (typeof value === 'number') return 2
  if (typeof value === 'string') return 3
  if (Array.isArray(value)) return 5
  if (isRecord(value)) return 4
  return 8
}

/**
 * Compares two values as MongoDB orders them (`$min`, `$max`, `$push`'s `$sort`): by type first, then
 * numbers by value, text by code points, booleans false first; documents and arrays field by field.
 */
export function compareValues(a: unknown, b: unknown): number {
  const rank = rankOf(a) - rankOf(b)
  if (rank !== 0) return Math.sign(rank)
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b)
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  if (Array.isArray(a) && Array.isArray(b)) return compareLists(a, b)
  if (isRecord(a) && isRecord(b)) return compareLists(Object.entries(a).flat(), Object.entries(b).flat())
  return 0
}

function compareLists(a: readonly unknown[], b: readonly unknown[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = compareValues(a[index], b[index])
    if (order !== 0) return order
  }
  return Math.sign(a.length - b.length)
}

/** Whether two values are equal as MongoDB compares them for `$addToSet` and `$pullAll` (documents field by field, in order). */
export const sameValue = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b)
