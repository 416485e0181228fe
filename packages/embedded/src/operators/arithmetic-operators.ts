import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { bsonTypeAlias } from '../bson/bson-type.js'
import { locationError, serverError } from '../errors.js'
import { asDouble } from '../numbers/coerce-number.js'
import type { RoundingMode } from '../numbers/decimal-number.js'
import { heldDouble, heldNumber, int, isInt32Number, long, type TypedNumber, typedNumber } from '../numbers/numeric-type.js'
import { addTyped, divideTyped, isZeroTyped, modTyped, multiplyTyped, subtractTyped } from '../numbers/typed-arithmetic.js'
import { absTyped, powTyped, roundTyped, sqrtTyped, transcendental } from './numeric-functions.js'

type Operator = (obj: object, expr: unknown, options: Options) => unknown

/**
 * MongoDB's arithmetic expression operators over every numeric BSON type, in place of mingo's (which
 * add JS numbers and know no Long, Double or Decimal128): the result types of typed-arithmetic.ts
 * and numeric-functions.ts, null for a null or missing operand, and MongoDB's error codes for the
 * rest. Operands come as the engine holds them (numeric-type.ts), and so do results.
 */
export const ARITHMETIC_OPERATORS: Record<string, Operator> = {
  $add: (obj, expr, options) => {
    const args = operandList(obj, expr, options)
    if (args.every((arg) => typeof arg === 'number')) return plainSum(args as number[])
    let total: TypedNumber = int(0)
    let date: Date | undefined
    for (const arg of args) {
      if (arg === null || arg === undefined) return null
      if (arg instanceof Date) {
        if (date !== undefined) throw locationError(16612, 'only one date allowed in an $add expression')
        date = arg
        continue
      }
      total = addTyped(total, numeric(arg, () => locationError(16554, `$add only supports numeric or date types, not ${bsonTypeAlias(arg)}`)))
    }
    return date === undefined ? heldNumber(total) : new Date(date.getTime() + Math.round(asDouble(total)))
  },
  $subtract: (obj, expr, options) => {
    const [a, b] = operands(obj, expr, options, '$subtract', 2)
    if (a === null || a === undefined || b === null || b === undefined) return null
    if (a instanceof Date) {
      if (b instanceof Date) return heldNumber(long(BigInt(a.getTime() - b.getTime())))
      const typed = typedNumber(b)
      if (typed !== undefined) return new Date(a.getTime() - Math.round(asDouble(typed)))
    }
    const fail = () => locationError(16556, `can't $subtract ${bsonTypeAlias(b)} from ${bsonTypeAlias(a)}`)
    return heldNumber(subtractTyped(numeric(a, fail), numeric(b, fail)))
  },
  $multiply: (obj, expr, options) => {
    let product: TypedNumber = int(1)
    for (const arg of operandList(obj, expr, options)) {
      if (arg === null || arg === undefined) return null
      product = multiplyTyped(product, numeric(arg, () => locationError(16555, `$multiply only supports numeric types, not ${bsonTypeAlias(arg)}`)))
    }
    return heldNumber(product)
  },
  $divide: (obj, expr, options) => binaryNumeric(obj, expr, options, '$divide', 16609, (a, b) => {
    if (isZeroTyped(b)) throw serverError(2, 'BadValue', "can't $divide by zero")
    return divideTyped(a, b)
  }),
  $mod: (obj, expr, options) => binaryNumeric(obj, expr, options, '$mod', 16611, (a, b) => {
    if (isZeroTyped(b)) throw locationError(16610, "can't $mod by zero")
    return modTyped(a, b)
  }),
  $pow: (obj, expr, options) => binaryNumeric(obj, expr, options, '$pow', 28762, powTyped),
  $log: (obj, expr, options) => binaryNumeric(obj, expr, options, '$log', 28756, (a, b) => {
    if (!(asDouble(a) > 0)) throw locationError(28758, `$log's argument must be a positive number, but is ${asDouble(a)}`)
    const base = asDouble(b)
    if (!(base > 0) || base === 1) throw locationError(28759, `$log's base must be a positive number not equal to 1, but is ${base}`)
    return transcendental(a, (x) => Math.log(x) / Math.log(base), [b])
  }),
  $abs: unary('$abs', absTyped),
  $ceil: unary('$ceil', (number) => roundTyped(number, 0, 'ceiling')),
  $floor: unary('$floor', (number) => roundTyped(number, 0, 'floor')),
  $sqrt: unary('$sqrt', sqrtTyped),
  $exp: unary('$exp', (number) => transcendental(number, Math.exp)),
  $ln: unary('$ln', (number) => {
    if (!(asDouble(number) > 0)) throw locationError(28766, `$ln's argument must be a positive number, but is ${asDouble(number)}`)
    return transcendental(number, Math.log)
  }),
  $log10: unary('$log10', (number) => {
    if (!(asDouble(number) > 0)) throw locationError(28761, `$log10's argument must be a positive number, but is ${asDouble(number)}`)
    return transcendental(number, Math.log10)
  }),
  $round: rounding('$round', 'half-even'),
  $trunc: rounding('$trunc', 'truncate'),
}

/**
 * The sum of plain JS numbers (the common case), without typed arithmetic: ints stay an int while the
 * sum fits, then a long (exact: a double holds the sum of int32s exactly); any double makes a double.
 */
function plainSum(args: number[]): unknown {
  let sum = 0
  let ints = true
  for (const arg of args) {
    sum += arg
    if (ints && !isInt32Number(arg)) ints = false
  }
  if (!ints) return heldDouble(sum)
  return isInt32Number(sum) ? sum : heldNumber(long(BigInt(sum)))
}

/** The operands of an n-ary operator: an array's items, or one expression's value. */
function operandList(obj: object, expr: unknown, options: Options): unknown[] {
  const value = evalExpr(obj, expr, options)
  return Array.isArray(expr) ? (value as unknown[]) : [value]
}

function operands(obj: object, expr: unknown, options: Options, name: string, count: number): unknown[] {
  const list = Array.isArray(expr) ? expr : [expr]
  if (list.length !== count) throw locationError(16020, `Expression ${name} takes exactly ${count} arguments. ${list.length} were passed in.`)
  return evalExpr(obj, list, options) as unknown[]
}

function numeric(value: unknown, fail: () => Error): TypedNumber {
  const typed = typedNumber(value)
  if (typed === undefined) throw fail()
  return typed
}

function binaryNumeric(obj: object, expr: unknown, options: Options, name: string, code: number, compute: (a: TypedNumber, b: TypedNumber) => TypedNumber): unknown {
  const [a, b] = operands(obj, expr, options, name, 2)
  if (a === null || a === undefined || b === null || b === undefined) return null
  const fail = () => locationError(code, `${name} only supports numeric types, not ${bsonTypeAlias(a)} and ${bsonTypeAlias(b)}`)
  return heldNumber(compute(numeric(a, fail), numeric(b, fail)))
}

function unary(name: string, compute: (number: TypedNumber) => TypedNumber): Operator {
  return (obj, expr, options) => {
    const [value] = operands(obj, expr, options, name, 1)
    if (value === null || value === undefined) return null
    return heldNumber(compute(numeric(value, () => locationError(28765, `${name} only supports numeric types, not ${bsonTypeAlias(value)}`))))
  }
}

/** `$round` and `$trunc`: `<number>` or `[<number>, <place>]`, the place an integer from -20 to 100. */
function rounding(name: string, mode: RoundingMode): Operator {
  return (obj, expr, options) => {
    const list = Array.isArray(expr) ? expr : [expr]
    if (list.length < 1 || list.length > 2) throw locationError(28667, `Expression ${name} takes at least 1 argument, and at most 2, but ${list.length} were passed in.`)
    const [value, placeValue = 0] = evalExpr(obj, list, options) as unknown[]
    if (value === null || value === undefined || placeValue === null || placeValue === undefined) return null
    const number = numeric(value, () => locationError(51081, `${name} only supports numeric types, not ${bsonTypeAlias(value)}`))
    const place = typedNumber(placeValue) === undefined ? Number.NaN : Number(placeValue)
    if (!Number.isInteger(place) || place < -20 || place > 100) throw locationError(51083, `cannot apply ${name} with precision value ${String(placeValue)} value must be in [-20, 100]`)
    return heldNumber(roundTyped(number, place, mode))
  }
}
