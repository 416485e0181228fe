import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { ensureArray, flatten, isEqual, compare as mingoCompare, resolve, typeOf } from 'mingo/util'
import { isPlainObject } from '../document.js'
import { badValueError, serverError } from '../errors.js'
import { compareNumeric, isNaNNumber } from '../numbers/compare-numbers.js'
import { isNumeric } from '../numbers/numeric-type.js'
import { LINEAR_REGEX_QUERY_OPERATORS } from './regex-operators.js'

type Predicate = (doc: Record<string, unknown>) => boolean
type Test = (lhs: unknown, value: unknown, depth: number) => boolean

/**
 * How values compare in the operators below: strings (values, never field names) by `compareStrings`
 * (binary, or a collation's order), whole values in BSON order by `compareValues` (bson-order.ts).
 */
export interface ValueOrder {
  compareStrings(a: string, b: string): number
  compareValues(a: unknown, b: unknown): number
}

/**
 * mingo's operators that compare values, answering as mingo's own do (its `isEqual`, `compare` and
 * type bracketing), except that two numbers compare by value whatever their BSON types (1, NumberLong(1)
 * and NumberDecimal("1.0") are equal; a Long beyond 2^53 is above the nearest double), as MongoDB
 * compares them, and that strings compare in `order`: the query operators `$eq` (and implicit
 * equality), `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$all` (so also inside arrays and
 * `$elemMatch`, which compiles its criteria with these), and the expression operators `$eq`, `$ne`,
 * `$gt`, `$gte`, `$lt`, `$lte`, `$cmp`, `$in`.
 */
export function valueQueryOperators(order: ValueOrder) {
  const same = (a: unknown, b: unknown) => sameValue(order, a, b)
  const eq: Test = (lhs, value, depth) => {
    if (same(lhs, value) || (isNil(lhs) && isNil(value))) return true
    if (!Array.isArray(lhs)) return false
    return lhs.some((item) => same(item, value)) || flatten(lhs, depth).some((item) => same(item, value))
  }
  const ordered = (op: (n: number) => boolean): Test => {
    return (lhs, bound) => {
      for (const item of ensureArray(lhs)) {
        const n = compareBracketed(order, item, bound)
        if (n !== undefined && op(n)) return true
      }
      return false
    }
  }
  const inValues: Test = (lhs, values) => {
    const list = values as unknown[]
    if (isNil(lhs)) return list.some((v) => v === null)
    return ensureArray(lhs).some((item) => list.some((v) => !(v instanceof RegExp) && same(item, v)))
  }
  const $in = (selector: string, value: unknown, options: Options): Predicate => {
    if (!Array.isArray(value)) throw badValueError('$in needs an array')
    // Regular expressions: the engine's linear-time $in matches them.
    const regexes = value.filter((v) => v instanceof RegExp)
    const byRegex = regexes.length > 0 ? LINEAR_REGEX_QUERY_OPERATORS.$in(selector, regexes, options) : () => false
    const byValue = query(inValues)(selector, value, options)
    return (doc) => byValue(doc) || byRegex(doc)
  }
  const $all = (selector: string, value: unknown, options: Options): Predicate => {
    if (!Array.isArray(value) || value.length === 0) return () => false
    const linear = value.filter((v) => v instanceof RegExp || (isPlainObject(v) && Object.keys(v)[0] === '$elemMatch'))
    const equal = value.filter((v) => !linear.includes(v))
    const byLinear = linear.length > 0 ? LINEAR_REGEX_QUERY_OPERATORS.$all(selector, linear, options) : () => true
    const byValue = query((lhs) => Array.isArray(lhs) && lhs.length > 0 && equal.every((v) => lhs.some((item) => same(v, item))))(selector, value, options)
    return (doc) => byValue(doc) && byLinear(doc)
  }
  return {
    $eq: query(eq),
    $ne: query((lhs, value, depth) => !eq(lhs, value, depth)),
    $gt: query(ordered((n) => n > 0)),
    $gte: query(ordered((n) => n >= 0)),
    $lt: query(ordered((n) => n < 0)),
    $lte: query(ordered((n) => n <= 0)),
    $in,
    $nin: (selector: string, value: unknown, options: Options): Predicate => {
      const matches = $in(selector, value, options)
      return (doc) => !matches(doc)
    },
    $all,
  }
}

/**
 * mingo's type bracketing: a value compares with a bound of its own type only (undefined
 * otherwise); every numeric BSON type is one type, compared by value. NaN, as in MongoDB's
 * queries, orders against nothing but NaN, which it equals.
 */
function compareBracketed(order: ValueOrder, item: unknown, bound: unknown): number | undefined {
  if (isNumeric(item) && isNumeric(bound)) {
    const nan = isNaNNumber(item)
    if (nan || isNaNNumber(bound)) return nan && isNaNNumber(bound) ? 0 : undefined
    return compareNumeric(item, bound)
  }
  if (typeOf(item) !== typeOf(bound)) return undefined
  return typeof item === 'string' && typeof bound === 'string' ? order.compareStrings(item, bound) : mingoCompare(item, bound)
}

/** mingo's processQuery: the value at the path (arrays unwrapped), and its depth for flattening. */
function query(test: Test) {
  return (selector: string, value: unknown, _options: Options): Predicate => {
    const depth = selector.split('.').length - 1
    return (doc) => test(resolve(doc, selector, { unwrapArray: true }), value, depth)
  }
}

export function valueExpressionOperators(order: ValueOrder) {
  // Expressions compare whole values in BSON order; a missing value ranks below null.
  const compare = (a: unknown, b: unknown) => (a === undefined || b === undefined ? (a === b ? 0 : a === undefined ? -1 : 1) : order.compareValues(a, b))
  const binary = (name: string, answer: (n: number) => unknown) => (obj: object, expr: unknown, options: Options) => {
    if (!Array.isArray(expr) || expr.length !== 2) throw badValueError(`Expression ${name} takes exactly 2 arguments.`)
    const [a, b] = evalExpr(obj, expr, options) as [unknown, unknown]
    return answer(compare(a, b))
  }
  return {
    $eq: binary('$eq', (n) => n === 0),
    $ne: binary('$ne', (n) => n !== 0),
    $gt: binary('$gt', (n) => n > 0),
    $gte: binary('$gte', (n) => n >= 0),
    $lt: binary('$lt', (n) => n < 0),
    $lte: binary('$lte', (n) => n <= 0),
    $cmp: binary('$cmp', (n) => Math.sign(n)),
    $in: (obj: object, expr: unknown, options: Options) => {
      if (!Array.isArray(expr) || expr.length !== 2) throw badValueError('Expression $in takes exactly 2 arguments.')
      const [value, list] = evalExpr(obj, expr, options) as [unknown, unknown]
      if (!Array.isArray(list)) throw serverError(40081, 'Location40081', `$in requires an array as a second argument, found: ${typeOf(list)}`)
      return list.some((item) => compare(value, item) === 0)
    },
  }
}

/** mingo's isEqual, with numbers equal by value across types and strings equal when `order` says so (nested ones too). */
export function sameValue(order: ValueOrder, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b || order.compareStrings(a, b) === 0
  if (isNumeric(a) && isNumeric(b)) return compareNumeric(a, b) === 0
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(order, item, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(order, a[key], b[key]))
  }
  return isEqual(a, b)
}

function isNil(value: unknown): boolean {
  return value === null || value === undefined
}
