import type { Document } from './document.js'
import { isExactScalar } from './simple-filter.js'
import type { UniqueIndex } from './unique-index.js'
import { toValueKey } from './value-key.js'

/**
 * The storage keys a filter restricts its matches to, or undefined when a full scan is needed:
 * the engine's index lookups. A filter is a conjunction of its top-level conditions (and of
 * those of a top-level `$and`); one of them pinning `_id`, or a field with a one-field unique
 * index, to a value (`v`, `{ $eq: v }`) or a list (`{ $in: [...] }`) is enough. The caller
 * still runs the whole filter on each document read, so only completeness matters here.
 *
 * A unique index is used only for scalars (string, number, boolean, Date, ObjectId) on a
 * top-level field: for those, every document the matcher accepts holds the value itself or as
 * an array element, both of which the index keys (unique-index.ts). Null (which also matches
 * missing), regexes, arrays, embedded documents and dotted paths are left to a scan.
 */
export function pointKeysOf(filter: Document, indexes: readonly UniqueIndex[]): string[] | undefined {
  const conditions: [string, unknown][] = []
  collectConditions(filter, conditions)
  for (const [field, condition] of conditions) {
    if (field !== '_id') continue
    const values = valuesOf(condition, isIdValue)
    if (values) return [...new Set(values.map(toValueKey))]
  }
  for (const [field, condition] of conditions) {
    const index = indexes.find((candidate) => candidate.fields.length === 1 && candidate.fields[0] === field)
    if (!index || field.includes('.')) continue
    const values = valuesOf(condition, isExactScalar)
    if (!values) continue
    const owners = values.map((value) => index.ownerOf(value)).filter((owner) => owner !== undefined)
    return [...new Set(owners)]
  }
  return undefined
}

function collectConditions(filter: Document, out: [string, unknown][]): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) if (isPlainObject(part)) collectConditions(part, out)
    } else if (!key.startsWith('$')) {
      out.push([key, value])
    }
  }
}

/** The values a condition pins its field to (`v`, `{ $eq: v }`, `{ $in: [...] }`), if it does. */
function valuesOf(condition: unknown, isPinned: (value: unknown) => boolean): unknown[] | undefined {
  if (isPinned(condition)) return [condition]
  if (!isOperatorObject(condition) || Object.keys(condition).length !== 1) return undefined
  if (Object.hasOwn(condition, '$eq') && isPinned(condition['$eq'])) return [condition['$eq']]
  const list = condition['$in']
  if (Array.isArray(list) && list.every(isPinned)) return list
  return undefined
}

/** An `_id` matched by equality alone: not an operator object, a regex, null or an array. */
function isIdValue(value: unknown): boolean {
  if (value === null || value === undefined || value instanceof RegExp || Array.isArray(value)) return false
  if ((value as { _bsontype?: unknown })._bsontype === 'BSONRegExp') return false
  return !isOperatorObject(value)
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}
