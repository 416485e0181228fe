import { evalExpr } from 'mingo/core'
import * as mingo from 'mingo/operators/expression'
import type { AnyObject, Options } from 'mingo/types'
import { isPlainObject } from '../document.js'
import { exactDouble } from '../numbers/numeric-key.js'
import { isNumericObject } from '../numbers/numeric-type.js'
import { BOUNDED_ARRAY_OPERATORS, literal } from './bounded-array-operators.js'
import { BOUNDED_STRING_OPERATORS } from './bounded-string-operators.js'
import { sameValue } from './value-operators.js'

type Operator = (obj: AnyObject, expr: unknown, options: Options) => unknown

/**
 * mingo's expression operators that take a count, an index, a position or an amount read it as a JS
 * number: a Long, or a double the engine holds as a `Double` (numeric-type.ts), would be refused or
 * misread. These operators get such arguments as the JS number of their value (as BSON's default
 * decoding gave them before the engine kept every numeric type), their other arguments as they are.
 * What they answer is not a number whose type MongoDB defines by its operands (an element, a string,
 * a date), except the bitwise and trigonometric ones, which answer as mingo does.
 */
// mingo types each operator's arguments its own way: they are only ever called as operators are.
const TAKING_NUMBERS = {
  $arrayElemAt: mingo.$arrayElemAt,
  $slice: mingo.$slice,
  $substr: mingo.$substr,
  $substrBytes: mingo.$substrBytes,
  $substrCP: BOUNDED_STRING_OPERATORS.$substrCP,
  $indexOfBytes: mingo.$indexOfBytes,
  $range: BOUNDED_ARRAY_OPERATORS.$range,
  $firstN: mingo.$firstN,
  $lastN: mingo.$lastN,
  $maxN: mingo.$maxN,
  $minN: mingo.$minN,
  $dateAdd: mingo.$dateAdd,
  $dateSubtract: mingo.$dateSubtract,
  $dateFromParts: mingo.$dateFromParts,
  $bitAnd: mingo.$bitAnd,
  $bitOr: mingo.$bitOr,
  $bitXor: mingo.$bitXor,
  $bitNot: mingo.$bitNot,
  $sin: mingo.$sin,
  $cos: mingo.$cos,
  $tan: mingo.$tan,
  $asin: mingo.$asin,
  $acos: mingo.$acos,
  $atan: mingo.$atan,
  $atan2: mingo.$atan2,
  $asinh: mingo.$asinh,
  $acosh: mingo.$acosh,
  $atanh: mingo.$atanh,
  $sinh: mingo.$sinh,
  $cosh: mingo.$cosh,
  $tanh: mingo.$tanh,
  $degreesToRadians: mingo.$degreesToRadians,
  $radiansToDegrees: mingo.$radiansToDegrees,
} as Record<string, unknown> as Record<string, Operator>

export const NUMBER_ARGUMENT_OPERATORS: Record<string, Operator> = {
  ...Object.fromEntries(Object.entries(TAKING_NUMBERS).map(([name, operator]) => [name, withPlainNumbers(operator)])),
  $indexOfArray: indexOfArray,
}

/** The operator, given its arguments evaluated, numbers of any BSON type as plain JS numbers. */
function withPlainNumbers(operator: Operator): Operator {
  return (obj, expr, options) => {
    const value = evalExpr(obj, expr, options)
    if (Array.isArray(expr) && Array.isArray(value)) return operator(obj, value.map((arg) => literal(plain(arg))), options)
    if (isPlainObject(expr) && isPlainObject(value)) return operator(obj, Object.fromEntries(Object.entries(value).map(([name, arg]) => [name, literal(plain(arg))])), options)
    return operator(obj, literal(plain(value)), options)
  }
}

function plain(value: unknown): unknown {
  return isNumericObject(value) ? (exactDouble(value) ?? Number(value)) : value
}

/**
 * `$indexOfArray: [array, search, start?, end?]`: the first index of an element equal to `search`
 * (numbers by value across BSON types, as MongoDB compares them), -1 when none; null for a null or
 * missing array.
 */
function indexOfArray(obj: AnyObject, expr: unknown, options: Options): unknown {
  const [array, search, start, end] = evalExpr(obj, expr, options) as unknown[]
  if (array === null || array === undefined) return null
  if (!Array.isArray(array)) return mingo.$indexOfArray(obj, [array, search, start, end].filter((arg) => arg !== undefined).map((arg) => literal(plain(arg))), options)
  const from = start === undefined ? 0 : Number(plain(start))
  const to = end === undefined ? array.length : Math.min(array.length, Number(plain(end)))
  for (let i = from; i < to; i++) if (sameValue(BINARY_STRINGS, array[i], search)) return i
  return -1
}

const BINARY_STRINGS = {
  compareStrings: (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0),
  compareValues: () => 0,
}
