import { toValueKey } from '../bson/value-key.js'
import { type Document, isPlainObject } from '../document.js'

/**
 * The storage keys a filter restricts its matches to when it pins `_id`, or undefined: the
 * engine's `_id` lookups (secondary indexes are query-planner.ts's). A filter is a conjunction of
 * its top-level conditions (and of those of a top-level `$and`); one of them pinning `_id` to a
 * value (`v`, `{ $eq: v }`) or a list (`{ $in: [...] }`) is enough. The caller still runs the
 * whole filter on each document read, so only completeness matters here.
 */
export function pointKeysOf(filter: Document): string[] | undefined {
  const conditions: [string, unknown][] = []
  collectConditions(filter, conditions)
  for (const [field, condition] of conditions) {
    if (field !== '_id') continue
    const values = valuesOf(condition, isIdValue)
    if (values) return [...new Set(values.map(toValueKey))]
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
  if (!hasOperatorKey(condition) || Object.keys(condition).length !== 1) return undefined
  if (Object.hasOwn(condition, '$eq') && isPinned(condition['$eq'])) return [condition['$eq']]
  const list = condition['$in']
  if (Array.isArray(list) && list.every(isPinned)) return list
  return undefined
}

/** An `_id` matched by equality alone: not an operator object, a regex, null or an array. */
function isIdValue(value: unknown): boolean {
  if (value === null || value === undefined || value instanceof RegExp || Array.isArray(value)) return false
  if ((value as { _bsontype?: unknown })._bsontype === 'BSONRegExp') return false
  return !hasOperatorKey(value)
}

/** A plain object with at least one `$`-prefixed key: not a value that equality alone can match. */
function hasOperatorKey(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))
}
