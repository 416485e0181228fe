import { isRecord } from '../is-record.js'
import type { Condition, Filter, FilterValue } from './filter.js'

/** The outcome of evaluating a filter where only some fields are known: decided, or what is left to check. */
type Residual = boolean | Filter

/**
 * Evaluates `filter` against the fields of `doc` that `isKnown` accepts (by the path's first segment),
 * and returns what is left to check on the others: `true` or `false` when the known fields decide,
 * else the residual filter over the unknown fields. This is how a write checks, atomically, that its
 * result stays inside a row scope: the fields it writes are known, the residual goes into the write's
 * own filter, so the database checks the rest in the same operation.
 *
 * Semantics follow MongoDB's for the operators of the grammar (arrays match when one element does,
 * a missing field equals null). `doc` is a wire document as the store keeps it (`CollectionStore.asStored`):
 * `id`, ObjectIds as lowercase 24-hex strings, the terms the AST speaks.
 */
export function partialEvaluate(filter: Filter, doc: Record<string, unknown>, isKnown: (field: string) => boolean): Residual {
  switch (filter.kind) {
    case 'field': {
      const segments = filter.path.split('.')
      if (!isKnown(segments[0]!)) return filter
      return filter.conditions.every((condition) => matches(condition, resolve(doc, segments)))
    }
    case 'and': {
      const rest: Filter[] = []
      for (const item of filter.items) {
        const result = partialEvaluate(item, doc, isKnown)
        if (result === false) return false
        if (result !== true) rest.push(result)
      }
      return rest.length === 0 ? true : rest.length === 1 ? rest[0]! : { kind: 'and', items: rest }
    }
    case 'or':
    case 'nor': {
      const rest: Filter[] = []
      for (const item of filter.items) {
        const result = partialEvaluate(item, doc, isKnown)
        if (result === true) return filter.kind === 'or'
        if (result !== false) rest.push(result)
      }
      if (rest.length === 0) return filter.kind === 'nor'
      return { kind: filter.kind, items: rest }
    }
  }
}

/** Evaluates a filter on a document whose every field is known. */
function evaluateFilter(filter: Filter, doc: Record<string, unknown>): boolean {
  return partialEvaluate(filter, doc, () => true) === true
}

interface Resolved {
  found: boolean
  values: unknown[]
}

/** The values a dotted path reaches, descending into the elements of arrays on the way, as MongoDB does. */
function resolve(value: unknown, segments: string[]): Resolved {
  if (segments.length === 0) return { found: true, values: [value] }
  if (Array.isArray(value)) {
    const parts = value.map((item) => resolve(item, segments))
    return { found: parts.some((p) => p.found), values: parts.flatMap((p) => p.values) }
  }
  if (value === null || typeof value !== 'object') return { found: false, values: [] }
  const [head, ...rest] = segments
  if (!Object.hasOwn(value, head!)) return { found: false, values: [] }
  return resolve((value as Record<string, unknown>)[head!], rest)
}

function matches(condition: Condition, at: Resolved): boolean {
  switch (condition.op) {
    case 'eq':
      return equalsAny(at, condition.value)
    case 'ne':
      return !equalsAny(at, condition.value)
    case 'in':
      return condition.values.some((value) => equalsAny(at, value))
    case 'nin':
      return !condition.values.some((value) => equalsAny(at, value))
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = condition.op
      return candidates(at).some((x) => compare(x, condition.value, op))
    }
    case 'exists':
      return at.found === condition.value
    case 'size':
      return at.values.some((x) => Array.isArray(x) && x.length === condition.value)
    case 'all':
      return (
        condition.values.length > 0 &&
        at.values.some((x) => condition.values.every((value) => (Array.isArray(x) ? x : [x]).some((e) => same(e, value))))
      )
    case 'regex': {
      // Scope patterns are server code; `x` (extended) has no JavaScript flag and is not accepted here.
      const pattern = new RegExp(condition.pattern, condition.options.replace(/x/g, ''))
      return candidates(at).some((x) => typeof x === 'string' && pattern.test(x))
    }
    case 'not':
      return !condition.conditions.every((inner) => matches(inner, at))
    case 'elemMatchValue':
      return at.values.some(
        (x) => Array.isArray(x) && x.some((e) => condition.conditions.every((inner) => matches(inner, { found: true, values: [e] })))
      )
    case 'elemMatchDoc':
      return at.values.some(
        (x) => Array.isArray(x) && x.some((e) => isRecord(e) && evaluateFilter(condition.filter, e))
      )
  }
}

/** The values themselves and, for arrays, their elements: what MongoDB compares a scalar condition with. */
function candidates(at: Resolved): unknown[] {
  return at.values.flatMap((x) => (Array.isArray(x) ? [x, ...x] : [x]))
}

function equalsAny(at: Resolved, value: FilterValue): boolean {
  // `{ field: null }` also matches a document without the field.
  if (value === null && !at.found) return true
  return candidates(at).some((x) => same(x, value))
}

function same(x: unknown, value: FilterValue): boolean {
  if (value === null) return x === null || x === undefined
  if (Array.isArray(value)) return Array.isArray(x) && x.length === value.length && x.every((e, i) => same(e, value[i]!))
  if (typeof value === 'object') {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return false
    const keys = Object.keys(value)
    const own = Object.keys(x)
    return keys.length === own.length && keys.every((key, i) => own[i] === key && same((x as Record<string, unknown>)[key], value[key]!))
  }
  return x === value
}

function compare(x: unknown, value: FilterValue, op: 'gt' | 'gte' | 'lt' | 'lte'): boolean {
  // MongoDB compares within one type bracket only: a number never satisfies a bound on strings.
  let a: number | string
  let b: number | string
  if (typeof value === 'number' && typeof x === 'number') [a, b] = [x, value]
  else if (typeof value === 'string' && typeof x === 'string') [a, b] = [x, value]
  else return false
  switch (op) {
    case 'gt':
      return a > b
    case 'gte':
      return a >= b
    case 'lt':
      return a < b
    case 'lte':
      return a <= b
  }
}
