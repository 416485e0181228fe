import { invalidFilter, invalidQuery } from '../errors.js'

/**
 * Names no client path may hold, wherever it names one. `__proto__`, `constructor` and `prototype`
 * reach JavaScript's internals in any code that walks a document by the path (the embedded engine
 * answers them with an error, a page cursor would read `Object` as a sort key); `_bsontype` forges a
 * BSON type in a driver that trusts it. Below an open field (`Type.Record`, `Type.Any`) every name is
 * a field a client may use, so the model's shape alone never refuses these: this check does, first.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', '_bsontype'])

/** The query parameters in which clients name paths; every refusal names its parameter. */
type PathParameter = 'filters' | 'sort_by' | 'fields' | 'by' | 'metrics'

function refuse(parameter: PathParameter, detail: string): Error {
  // Filters keep their own error code (FMC_ERR_FILTER_INVALID); the other parameters are the query's.
  return (parameter === 'filters' ? invalidFilter : invalidQuery)(`${parameter}: ${detail}`)
}

/** Refuses one key a client sent (a path segment, or a key inside a filter) that must never be a field name. */
export function checkClientKey(parameter: PathParameter, key: string): void {
  if (FORBIDDEN_KEYS.has(key)) throw refuse(parameter, `key "${key}" is not allowed`)
}

/**
 * A client's dotted path, split into its segments once each is checked. Empty and `$`-prefixed
 * segments make no field path (MongoDB would read an operator or a positional), whatever the model
 * says; the answer never depends on the model, so it tells a client nothing about which fields exist.
 */
export function checkClientPath(parameter: PathParameter, path: string): string[] {
  const segments = path.split('.')
  if (segments.some((segment) => segment === '' || segment.startsWith('$'))) throw refuse(parameter, `"${path}" is not a valid field path`)
  for (const segment of segments) checkClientKey(parameter, segment)
  return segments
}

/**
 * Whether a client may not name a top-level field (its name as stored: `_id`, `pinned`): it holds
 * references to documents the caller may not be allowed to see (relations/populate.ts, `guards`).
 * Asked per request: it is known once every router of the app has registered.
 */
export type ReferenceGuard = (field: string) => boolean

/**
 * Refuses `name`, a path a client sent, when its top-level `field` is a guarded reference. GET shows
 * such a field as the referenced documents the caller may read; a filter, a sort or a group on the
 * stored ids would tell the others: that a document holds a guessed id, how many ids it holds, their
 * order. The rule is the field's, whoever the caller.
 */
export function checkReference(parameter: PathParameter, name: string, field: string, guard: ReferenceGuard | undefined): void {
  if (guard?.(field) !== true) return
  throw refuse(
    parameter,
    `field "${name}" holds references to documents the caller may not be allowed to see (their router shows them only to some callers): filters, sort_by, by and metrics may not name it`
  )
}
