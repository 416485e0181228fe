import { compareBson } from '../bson/bson-order.js'
import { toValueKey } from '../bson/value-key.js'
import { checkFieldPath } from '../check-field-path.js'
import type { Collation } from '../collation/collation.js'
import type { Document } from '../document.js'
import { typeMismatchError } from '../errors.js'

/**
 * The distinct values of `key` among `docs`, as the server's distinct answers them: array elements
 * counted one by one, values equal as keys (1 and 1.0) counted once, in BSON order. Under a
 * `collation`, values it finds equal ("PING" and "ping" at strength 2) are one: the first found.
 */
export async function distinctValues(docs: AsyncIterable<Document>, key: string, collation?: Collation): Promise<unknown[]> {
  if (typeof key !== 'string' || key === '') throw typeMismatchError("'key' must be a non-empty string")
  checkFieldPath(key)
  const path = key.split('.')
  const seen = new Map<string, unknown>()
  for await (const doc of docs) {
    for (const value of valuesAt(doc, path)) {
      const id = toValueKey(value)
      if (!seen.has(id)) seen.set(id, value)
    }
  }
  if (!collation) return [...seen.values()].sort(compareBson)
  // A stable sort keeps each run of equal values in the order found: its first is the first found.
  const sorted = [...seen.values()].sort(collation.compareValues)
  return sorted.filter((value, i) => i === 0 || collation.compareValues(sorted[i - 1], value) !== 0)
}

function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value : value === undefined ? [] : [value]
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path))
  if (typeof value !== 'object' || value === null) return []
  return valuesAt((value as Record<string, unknown>)[path[0]!], path.slice(1))
}
