import { isPlainObject } from './document.js'
import { badValueError } from './errors.js'

/**
 * Path segments that name a JavaScript object's internals. The engine keeps documents as plain
 * objects, so a client path through one of them would reach `Object.prototype` (a write there
 * pollutes every object of the process; `__proto__.toString` stops the server answering) or
 * `Object` itself, instead of a field.
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * Refuses a client field path (`a.b.c`) with one of those segments, before the engine builds or
 * walks a document with it (upsert seeds, update paths, projections, sort keys, index keys).
 *
 * MongoDB itself accepts these names, so it has no code for this refusal. The closest answer the
 * server gives to a field name it will not use is 52 DollarPrefixedFieldName, which is specific
 * to `$`; we answer 2 BadValue, the server's code for an argument it rejects, which is also the
 * code the engine already gives for mingo's own `__proto__` refusal.
 */
export function checkFieldPath(path: string): void {
  if (!path.includes('__proto__') && !path.includes('constructor') && !path.includes('prototype')) return
  for (const segment of path.split('.')) {
    if (FORBIDDEN.has(segment)) {
      throw badValueError(`The field path '${path}' contains '${segment}', which the embedded engine does not allow as a field name in a path`)
    }
  }
}

/**
 * Checks every key of `spec` as a field path, and the keys of the documents nested in it
 * (a nested projection, a pipeline stage's fields); `$`-operator keys are walked, not checked.
 * Values under the keys in `skip` (a `$match`'s filter: reads only) are left alone.
 */
export function checkFieldPaths(spec: unknown, skip: ReadonlySet<string> = NONE): void {
  if (Array.isArray(spec)) {
    for (const item of spec) checkFieldPaths(item, skip)
    return
  }
  if (!isPlainObject(spec)) return
  for (const [key, value] of Object.entries(spec)) {
    if (!key.startsWith('$')) checkFieldPath(key)
    if (!skip.has(key)) checkFieldPaths(value, skip)
  }
}

const NONE: ReadonlySet<string> = new Set()
