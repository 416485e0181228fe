import { Context, evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { ensureArray, flatten, isEqual, compare as mingoCompare, resolve, typeOf } from 'mingo/util'
import { isPlainObject } from '../document.js'
import { badValueError, serverError } from '../errors.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { LINEAR_REGEX_QUERY_OPERATORS } from '../operators/regex-operators.js'
import type { Collation } from './collation.js'

type Predicate = (doc: Record<string, unknown>) => boolean
type Test = (lhs: unknown, value: unknown, depth: number) => boolean

const contexts = new WeakMap<Collation, typeof MINGO_OPTIONS>()

/**
 * The engine's mingo options with the operators that compare values replaced by ones that compare
 * strings under `collation`: the query operators `$eq` (and implicit equality), `$ne`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$all` (so also inside arrays and `$elemMatch`, which
 * compiles its criteria with these options), and the expression operators `$eq`, `$ne`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$cmp`, `$in`. Each answers as mingo's own operator does for values without
 * strings. Built once per collation.
 */
export function collatedMingoOptions(collation: Collation): typeof MINGO_OPTIONS {
  let options = contexts.get(collation)
  if (options === undefined) {
    const own = Context.init({ query: collatedQueryOperators(collation), expression: collatedExpressionOperators(collation) } as Parameters<typeof Context.init>[0])
    // Context.from merges left to right, the first context's operators winning.
    options = Object.freeze({ ...MINGO_OPTIONS, context: Context.from(own, MINGO_OPTIONS.context) })
    contexts.set(collation, options)
  }
  return options
}

function collatedQueryOperators(collation: Collation) {
  const same = (a: unknown, b: unknown) => sameUnder(collation, a, b)
  const eq: Test = (lhs, value, depth) => {
    if (same(lhs, value) || (isNil(lhs) && isNil(value))) return true
    if (!Array.isArray(lhs)) return false
    return lhs.some((item) => same(item, value)) || flatten(lhs, depth).some((item) => same(item, value))
  }
  const order = (op: (n: number) => boolean): Test => {
    return (lhs, bound) => {
      for (const item of ensureArray(lhs)) {
        if (typeOf(item) !== typeOf(bound)) continue
        const n = typeof item === 'string' && typeof bound === 'string' ? collation.compareStrings(item, bound) : mingoCompare(item, bound)
        if (op(n)) return true
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
    // Regular expressions ignore the collation: the engine's linear-time $in matches them.
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
    $gt: query(order((n) => n > 0)),
    $gte: query(order((n) => n >= 0)),
    $lt: query(order((n) => n < 0)),
    $lte: query(order((n) => n <= 0)),
    $in,
    $nin: (selector: string, value: unknown, options: Options): Predicate => {
      const matches = $in(selector, value, options)
      return (doc) => !matches(doc)
    },
    $all,
  }
}

/** mingo's processQuery: the value at the path (arrays unwrapped), and its depth for flattening. */
function query(test: Test) {
  return (selector: string, value: unknown, _options: Options): Predicate => {
    const depth = selector.split('.').length - 1
    return (doc) => test(resolve(doc, selector, { unwrapArray: true }), value, depth)
  }
}

function collatedExpressionOperators(collation: Collation) {
  // Expressions compare whole values in BSON order; a missing value ranks below null.
  const order = (a: unknown, b: unknown) => (a === undefined || b === undefined ? (a === b ? 0 : a === undefined ? -1 : 1) : collation.compareValues(a, b))
  const binary = (name: string, answer: (n: number) => unknown) => (obj: object, expr: unknown, options: Options) => {
    if (!Array.isArray(expr) || expr.length !== 2) throw badValueError(`Expression ${name} takes exactly 2 arguments.`)
    const [a, b] = evalExpr(obj, expr, options) as [unknown, unknown]
    return answer(order(a, b))
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
      return list.some((item) => order(value, item) === 0)
    },
  }
}

/** mingo's isEqual, with two strings equal when the collation says so (nested ones too). */
function sameUnder(collation: Collation, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return collation.compareStrings(a, b) === 0
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameUnder(collation, item, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameUnder(collation, a[key], b[key]))
  }
  return isEqual(a, b)
}

function isNil(value: unknown): boolean {
  return value === null || value === undefined
}
