import { ObjectId } from 'mongodb'
import { type Document, isPlainObject } from '../document.js'

type Predicate = (doc: Document) => boolean
type Comparison = '$gt' | '$gte' | '$lt' | '$lte'

const COMPARISONS = new Set<string>(['$gt', '$gte', '$lt', '$lte'])

/**
 * A matcher for the most common filter shape, without building a mingo `Query` (whose setup
 * costs more than matching a few documents): top-level fields, each equal to a scalar,
 * compared by `$eq`, `$gt`, `$gte`, `$lt`, `$lte`, or in a list of scalars (`$in`), optionally
 * inside a top-level `$and`. Undefined for anything else, which mingo then compiles.
 *
 * `$in` looks each value up in a map built once: mingo builds a hash set of the whole list for
 * every document it matches, so a list of n ids over n documents (a populate) took n² steps.
 *
 * The answers are mingo's, case by case (see its `isEqual`, `$eq` and `compare`), for documents
 * decoded from BSON (plain objects, no boxed primitives): equality holds for the value itself or
 * for an element of an array value; a comparison holds for the value or an element of the same
 * JavaScript type (type bracketing). Null (which also matches missing), NaN, regexes, arrays
 * and embedded documents are left to mingo.
 */
export function compileSimpleFilter(filter: Document): Predicate | undefined {
  const predicates: Predicate[] = []
  if (!collect(filter, predicates)) return undefined
  if (predicates.length === 1) return predicates[0]
  return (doc) => {
    for (const predicate of predicates) if (!predicate(doc)) return false
    return true
  }
}

function collect(filter: Document, out: Predicate[]): boolean {
  for (const key of Object.keys(filter)) {
    const value = filter[key]
    if (key === '$and') {
      if (!Array.isArray(value) || value.length === 0) return false
      for (const part of value) if (!isPlainObject(part) || !collect(part, out)) return false
    } else if (!isSimpleField(key)) {
      return false
    } else if (isExactScalar(value)) {
      out.push(equals(key, value))
    } else if (isPlainObject(value)) {
      const operators = Object.keys(value)
      if (operators.length === 0) return false
      for (const op of operators) {
        const arg = value[op]
        if (op === '$eq' && isExactScalar(arg)) out.push(equals(key, arg))
        else if (COMPARISONS.has(op) && isComparable(arg)) out.push(compares(key, op as Comparison, arg))
        else if (op === '$in' && Array.isArray(arg) && arg.every(isExactScalar)) out.push(within(key, arg))
        else return false
      }
    } else {
      return false
    }
  }
  return true
}

/** A top-level field mingo reads as a plain property (no path, no operator, no prototype access). */
function isSimpleField(key: string): boolean {
  return key !== '' && !key.startsWith('$') && !key.includes('.') && !key.includes('__proto__')
}

/** A value equality alone decides: a string, boolean, number (not NaN), Date or ObjectId. */
export function isExactScalar(value: unknown): value is string | number | boolean | Date | ObjectId {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return !Number.isNaN(value)
  }
  return value instanceof Date || value instanceof ObjectId
}

function isComparable(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && !Number.isNaN(value))
}

function fieldOf(doc: Document, key: string): unknown {
  return Object.hasOwn(doc, key) ? doc[key] : undefined
}

function equals(key: string, expected: string | number | boolean | Date | ObjectId): Predicate {
  const same = sameAs(expected)
  return (doc) => {
    const value = fieldOf(doc, key)
    if (same(value)) return true
    if (!Array.isArray(value)) return false
    for (const item of value) if (same(item)) return true
    return false
  }
}

/**
 * mingo's `$in` over a list of exact scalars: the value, or an element of an array value, equals
 * one of them (`isEqual`). Candidates are found by a key of their kind and value, then checked
 * with `sameAs` (which also compares the class: an ObjectId or Date of another copy of bson differs).
 */
function within(key: string, list: Array<string | number | boolean | Date | ObjectId>): Predicate {
  const candidates = new Map<string, Array<(value: unknown) => boolean>>()
  for (const expected of list) {
    const id = scalarKey(expected)!
    const found = candidates.get(id)
    if (found === undefined) candidates.set(id, [sameAs(expected)])
    else found.push(sameAs(expected))
  }
  const one = (value: unknown) => {
    const id = scalarKey(value)
    if (id === undefined) return false
    for (const same of candidates.get(id) ?? []) if (same(value)) return true
    return false
  }
  return (doc) => {
    const value = fieldOf(doc, key)
    if (one(value)) return true
    if (!Array.isArray(value)) return false
    for (const item of value) if (one(item)) return true
    return false
  }
}

/** A key equal for values `sameAs` may find equal (same kind, same value); undefined for any other value. */
function scalarKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `s${value}`
    case 'number':
      // 0 and -0 are equal (===); NaN equals nothing.
      return Number.isNaN(value) ? undefined : `n${value === 0 ? 0 : value}`
    case 'boolean':
      return value ? 'bt' : 'bf'
  }
  if (value instanceof Date) return `d${value.getTime()}`
  if (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId') return `o${String(value)}`
  return undefined
}

/** mingo's `isEqual(value, expected)` for one kind of expected value. */
function sameAs(expected: string | number | boolean | Date | ObjectId): (value: unknown) => boolean {
  if (expected instanceof Date) {
    const time = expected.getTime()
    return (value) => value instanceof Date && value.constructor === expected.constructor && value.getTime() === time
  }
  if (expected instanceof ObjectId) {
    const hex = expected.toString()
    return (value) => typeof value === 'object' && value !== null && value.constructor === expected.constructor && String(value.toString()) === hex
  }
  return (value) => value === expected
}

/** mingo's `compare`: some element (or the value itself) of the same type orders as asked. */
function compares(key: string, op: Comparison, bound: string | number): Predicate {
  const type = typeof bound
  const holds = ORDER_TESTS[op]
  return (doc) => {
    const value = fieldOf(doc, key)
    if (!Array.isArray(value)) return typeof value === type && holds(value as string | number, bound)
    for (const item of value) if (typeof item === type && holds(item as string | number, bound)) return true
    return false
  }
}

/** mingo's order of two values of one type: note that NaN compares equal to every number. */
const order = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)

const ORDER_TESTS: Record<Comparison, (a: string | number, b: string | number) => boolean> = {
  $gt: (a, b) => order(a, b) > 0,
  $gte: (a, b) => order(a, b) >= 0,
  $lt: (a, b) => order(a, b) < 0,
  $lte: (a, b) => order(a, b) <= 0,
}
