import { ObjectId } from 'mongodb'
import { objectIdKey } from '../bson/object-id-key.js'
import { type Document, isPlainObject } from '../document.js'
import { compareNumeric, isNaNNumber } from '../numbers/compare-numbers.js'
import { exactDouble, numericKey } from '../numbers/numeric-key.js'
import { isNumericObject } from '../numbers/numeric-type.js'

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
 * JavaScript type (type bracketing), NaN never (as in MongoDB's queries, it orders against no other
 * number). Numbers compare by value whatever their BSON types (a Long or
 * a Double the engine holds as an object, numeric-type.ts, against a plain number): a bound of
 * another numeric type is the JS number of its value, and one no JS number holds exactly (a Long
 * beyond 2^53, the decimal 0.1) is left to mingo, as are null (which also matches missing), NaN,
 * regexes, arrays and embedded documents.
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
    } else if (isExactScalar(plain(value))) {
      out.push(equals(key, plain(value) as Scalar))
    } else if (isPlainObject(value)) {
      const operators = Object.keys(value)
      if (operators.length === 0) return false
      for (const op of operators) {
        const arg = plain(value[op])
        if (op === '$eq' && isExactScalar(arg)) out.push(equals(key, arg))
        else if (COMPARISONS.has(op) && isComparable(arg)) out.push(compares(key, op as Comparison, arg))
        else if (op === '$in' && Array.isArray(arg) && arg.map(plain).every(isExactScalar)) out.push(within(key, arg.map(plain) as Scalar[]))
        else return false
      }
    } else {
      return false
    }
  }
  return true
}

type Scalar = string | number | boolean | Date | ObjectId

/** A bound as this matcher takes it: a number of another BSON type as the JS number of its value, when one holds it exactly. */
function plain(value: unknown): unknown {
  return isNumericObject(value) ? (exactDouble(value) ?? value) : value
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

function equals(key: string, expected: Scalar): Predicate {
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
 * with `isSame` (which also compares the class: an ObjectId or Date of another copy of bson differs).
 * A candidate is kept as its value (or the values sharing its key): a closure and an array for each
 * of the thousands of ids of a populate's `$in` lived as long as the read.
 */
function within(key: string, list: Scalar[]): Predicate {
  const candidates = new Map<string, Scalar | Scalar[]>()
  for (const expected of list) {
    const id = scalarKey(expected)!
    const found = candidates.get(id)
    if (found === undefined) candidates.set(id, expected)
    else if (Array.isArray(found)) found.push(expected)
    else candidates.set(id, [found, expected])
  }
  const one = (value: unknown) => {
    const id = scalarKey(value)
    if (id === undefined) return false
    const found = candidates.get(id)
    if (found === undefined) return false
    if (!Array.isArray(found)) return isSame(found, value)
    for (const expected of found) if (isSame(expected, value)) return true
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
  if (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId') return objectIdKey(value)
  // A Long or a Double the engine holds as an object: the key of its value.
  return numericKey(value)
}

/** mingo's `isEqual(value, expected)` for one kind of expected value, as a test of values. */
function sameAs(expected: Scalar): (value: unknown) => boolean {
  return (value) => isSame(expected, value)
}

/** mingo's `isEqual(value, expected)` for one kind of expected value; a number equals a number of any type of the same value. */
function isSame(expected: Scalar, value: unknown): boolean {
  if (expected instanceof Date) return value instanceof Date && value.constructor === expected.constructor && value.getTime() === expected.getTime()
  if (expected instanceof ObjectId) {
    // By their bytes, not their text: a text per candidate, and one per document read, was garbage that
    // lived as long as a read of many ids.
    return typeof value === 'object' && value !== null && value.constructor === expected.constructor && expected.equals(value as ObjectId)
  }
  if (typeof expected === 'number') return value === expected || (isNumericObject(value) && compareNumeric(value, expected) === 0)
  return value === expected
}

/** mingo's `compare`: some element (or the value itself) of the same type orders as asked; a number of any BSON type by its value, NaN never. */
function compares(key: string, op: Comparison, bound: string | number): Predicate {
  const type = typeof bound
  const holds = ORDER_TESTS[op]
  const test = (item: unknown) => {
    if (typeof item === type) return !Number.isNaN(item) && holds(order(item as string | number, bound))
    return type === 'number' && isNumericObject(item) && !isNaNNumber(item) && holds(compareNumeric(item, bound))
  }
  return (doc) => {
    const value = fieldOf(doc, key)
    if (!Array.isArray(value)) return test(value)
    for (const item of value) if (test(item)) return true
    return false
  }
}

/** The order of two strings, or of two numbers (NaN, which orders against no other number as in MongoDB's queries, is left out before). */
const order = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)

/** Whether an order (negative, zero, positive) satisfies the comparison. */
const ORDER_TESTS: Record<Comparison, (order: number) => boolean> = {
  $gt: (n) => n > 0,
  $gte: (n) => n >= 0,
  $lt: (n) => n < 0,
  $lte: (n) => n <= 0,
}
