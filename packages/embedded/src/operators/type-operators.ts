import { evalExpr } from 'mingo/core'
import * as mingo from 'mingo/operators/expression'
import type { Options } from 'mingo/types'
import { bsonTypeAlias } from '../bson/bson-type.js'
import { isPlainObject } from '../document.js'
import { badValueError } from '../errors.js'
import { isNumeric, type NumericType, typedNumber } from '../numbers/numeric-type.js'
import { convertToNumber, numberToBool, numberToDate, numberToString } from './convert-number.js'

type Operator = (obj: object, expr: unknown, options: Options) => unknown

/**
 * MongoDB's type expression operators over every numeric BSON type, in place of mingo's (whose
 * `$toLong` answers a JS number, `$toDecimal` a double, `$type` "int" for any whole number and
 * `$isNumber` false for a Long): `$isNumber`, `$type`, `$toInt`, `$toLong`, `$toDouble`,
 * `$toDecimal`, `$toBool`, `$toString`, `$toDate` and `$convert` (convert-number.ts). A value that
 * is not a number goes on to mingo's own conversion.
 */
export const TYPE_OPERATORS: Record<string, Operator> = {
  $isNumber: (obj, expr, options) => isNumeric(single(obj, expr, options)),
  $type: (obj, expr, options) => bsonTypeAlias(single(obj, expr, options)),
  $toInt: toNumeric('int'),
  $toLong: toNumeric('long'),
  $toDouble: toNumeric('double'),
  $toDecimal: toNumeric('decimal'),
  $toBool: (obj, expr, options) => convertTo(single(obj, expr, options), 'bool', options),
  $toString: (obj, expr, options) => convertTo(single(obj, expr, options), 'string', options),
  $toDate: (obj, expr, options) => convertTo(single(obj, expr, options), 'date', options),
  $convert: (obj, expr, options) => {
    if (!isPlainObject(expr) || !Object.hasOwn(expr, 'input') || !Object.hasOwn(expr, 'to')) throw badValueError('$convert expects an object of named arguments: input and to are required')
    const input = evalExpr(obj, expr['input'], options)
    if (input === null || input === undefined) return expr['onNull'] === undefined ? null : evalExpr(obj, expr['onNull'], options)
    const to = targetOf(evalExpr(obj, expr['to'], options))
    try {
      return convertTo(input, to, options)
    } catch (error) {
      if (expr['onError'] === undefined) throw error
      return evalExpr(obj, expr['onError'], options)
    }
  },
}

/** A unary operator's operand: `<expr>` or `[<expr>]`. */
function single(obj: object, expr: unknown, options: Options): unknown {
  return evalExpr(obj, Array.isArray(expr) && expr.length === 1 ? expr[0] : expr, options)
}

function toNumeric(to: NumericType): Operator {
  return (obj, expr, options) => {
    const value = single(obj, expr, options)
    return value === null || value === undefined ? null : convertToNumber(value, to)
  }
}

/** `$convert`'s `to`: a type's alias or number. */
const TARGETS: Record<string, string> = { 1: 'double', 2: 'string', 7: 'objectId', 8: 'bool', 9: 'date', 16: 'int', 18: 'long', 19: 'decimal' }

function targetOf(to: unknown): string {
  const name = typeof to === 'string' ? to : typedNumber(to) === undefined ? undefined : TARGETS[Number(to)]
  if (name === undefined || !Object.values(TARGETS).includes(name)) throw badValueError(`Unknown type name: ${String(to)}`)
  return name
}

function convertTo(value: unknown, to: string, options: Options): unknown {
  if (value === null || value === undefined) return null
  if (to === 'int' || to === 'long' || to === 'double' || to === 'decimal') return convertToNumber(value, to)
  const number = typedNumber(value)
  if (number !== undefined) {
    if (to === 'bool') return numberToBool(number)
    if (to === 'string') return numberToString(number)
    if (to === 'date') return numberToDate(number)
  }
  // Not a number: mingo's conversion, given the value as it is.
  return mingo.$convert({}, { input: { $literal: value }, to }, options)
}
