import { $push } from 'mingo/operators/accumulator'
import type { Options } from 'mingo/types'
import { compareBson } from '../bson/bson-order.js'
import { asDouble } from '../numbers/coerce-number.js'
import { divideDecimals } from '../numbers/decimal-arithmetic.js'
import { fromBigInt } from '../numbers/decimal-number.js'
import { decimal, double, heldDouble, heldNumber, int, isInt32Number, long, type TypedNumber, typedNumber } from '../numbers/numeric-type.js'
import { addTyped, multiplyTyped } from '../numbers/typed-arithmetic.js'

type Accumulator = (collection: unknown[], expr: unknown, options: Options) => unknown

/**
 * The accumulators that compute on numbers, over every numeric BSON type, in place of mingo's (whose
 * `$sum` and `$avg` skip a Long or a Decimal128, and whose `$min` and `$max` order a Long among
 * objects). Each serves `$group` (a collection of documents and the expression to read from each)
 * and the expression forms (`{ $sum: '$array' }`: the values already computed, `expr` null).
 * - `$sum`: widens as `$add` does (int, long past 2^31, double past 2^63; any double makes a double,
 *   any decimal a decimal); values that are not numbers are skipped; nothing sums to the int 0.
 * - `$avg`: a double, or a decimal when a decimal is summed; null without numbers.
 * - `$min`, `$max`: the smallest and largest value in BSON order (numbers by value), with its own
 *   type; null and missing values are skipped.
 * - `$stdDevPop`, `$stdDevSamp`: a double, over the numbers.
 */
export const NUMERIC_ACCUMULATORS: Record<string, Accumulator> = {
  $sum: (collection, expr, options) => {
    // A constant (`$sum: 1`, a count): the constant times the group's size, in its type.
    const constant = typedNumber(expr)
    if (constant !== undefined) return heldNumber(multiplyTyped(constant, integer(collection.length)))
    return heldNumber(sumOf(valuesOf(collection, expr, options)).total)
  },
  $avg: (collection, expr, options) => {
    const { total, count } = sumOf(valuesOf(collection, expr, options))
    if (count === 0) return null
    if (total.type === 'decimal') return heldNumber(decimal(divideDecimals(total.value, fromBigInt(BigInt(count)))))
    return heldDouble(asDouble(total) / count)
  },
  $min: (collection, expr, options) => extreme(valuesOf(collection, expr, options), -1),
  $max: (collection, expr, options) => extreme(valuesOf(collection, expr, options), 1),
  $stdDevPop: (collection, expr, options) => deviation(valuesOf(collection, expr, options), false),
  $stdDevSamp: (collection, expr, options) => deviation(valuesOf(collection, expr, options), true),
}

/** What the accumulator reads: each document's value of `expr` in `$group` (mingo's `$push`: missing as null), the values themselves otherwise. */
function valuesOf(collection: unknown[], expr: unknown, options: Options): unknown[] {
  return $push(collection, expr, options) as unknown[]
}

/**
 * The typed sum of the numbers among `values` and how many there were. Plain JS numbers, the common
 * case, add as doubles while their sum is exact (below 2^53); the total is typed once, at the end.
 */
function sumOf(values: unknown[]): { total: TypedNumber, count: number } {
  let total: TypedNumber = int(0)
  let plain = 0
  let plainInts = true
  let count = 0
  const fold = () => {
    if (plain === 0 && plainInts) return
    total = addTyped(total, plainInts ? integer(plain) : double(plain))
    plain = 0
    plainInts = true
  }
  for (const value of values) {
    if (typeof value === 'number') {
      count++
      plain += value
      if (plainInts && !isInt32Number(value)) plainInts = false
      if (plainInts && Math.abs(plain) > 2 ** 52) fold()
      continue
    }
    const typed = typedNumber(value)
    if (typed === undefined) continue
    count++
    fold()
    total = addTyped(total, typed)
  }
  fold()
  return { total, count }
}

/** A whole number's type: an int within the int32 range, else a long. */
function integer(value: number): TypedNumber {
  return isInt32Number(value) ? int(value) : long(BigInt(value))
}

function extreme(values: unknown[], sign: 1 | -1): unknown {
  let best: unknown
  for (const value of values) {
    if (value === null || value === undefined) continue
    if (best === undefined || compareBson(value, best) * sign > 0) best = value
  }
  return best ?? null
}

function deviation(values: unknown[], sample: boolean): unknown {
  const numbers: number[] = []
  for (const value of values) {
    const typed = typedNumber(value)
    if (typed !== undefined) numbers.push(asDouble(typed))
  }
  if (numbers.length === 0 || (sample && numbers.length === 1)) return null
  const mean = numbers.reduce((sum, x) => sum + x, 0) / numbers.length
  const squares = numbers.reduce((sum, x) => sum + (x - mean) ** 2, 0)
  return heldDouble(Math.sqrt(squares / (numbers.length - (sample ? 1 : 0))))
}
