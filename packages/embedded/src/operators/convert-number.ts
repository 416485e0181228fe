import { Long } from 'mongodb'
import { serverError } from '../errors.js'
import { asDecimal, asDouble } from '../numbers/coerce-number.js'
import { roundDecimal } from '../numbers/decimal-arithmetic.js'
import { parseDecimal, toDecimal128 } from '../numbers/decimal-number.js'
import { heldDouble, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, type NumericType, type TypedNumber, typedNumber } from '../numbers/numeric-type.js'

/**
 * `$convert` to a numeric type (and `$toInt`, `$toLong`, `$toDouble`, `$toDecimal`), as MongoDB
 * converts: a boolean is 0 or 1, a date its milliseconds (not to int), a string its base-10 value
 * (an integer for int and long), a double or decimal truncated toward zero for int and long. A value
 * out of the target's range, NaN or infinity to an integer, or anything else fails with
 * ConversionFailure (241), which `$convert`'s `onError` catches. Answers the value as the engine
 * holds it (numeric-type.ts).
 */
export function convertToNumber(value: unknown, to: NumericType): unknown {
  const typed = sourceNumber(value, to)
  switch (to) {
    case 'int': {
      const integer = truncated(typed, value, to)
      if (integer < BigInt(INT32_MIN) || integer > BigInt(INT32_MAX)) throw conversionFailure(value, to, 'it is out of range')
      return Number(integer)
    }
    case 'long': {
      const integer = truncated(typed, value, to)
      if (integer < INT64_MIN || integer > INT64_MAX) throw conversionFailure(value, to, 'it is out of range')
      return Long.fromBigInt(integer)
    }
    case 'double':
      return heldDouble(asDouble(typed))
    case 'decimal':
      return toDecimal128(asDecimal(typed))
  }
}

/** What a value converts from: a number as it is, a boolean as 0 or 1, a date as its milliseconds, a string as its value. */
function sourceNumber(value: unknown, to: NumericType): TypedNumber {
  if (typeof value === 'boolean') return { type: 'int', value: value ? 1 : 0 }
  if (value instanceof Date) {
    if (to === 'int') throw conversionFailure(value, to, 'a date does not fit an int')
    return { type: 'long', value: BigInt(value.getTime()) }
  }
  if (typeof value === 'string') return parsed(value, to)
  const typed = typedNumber(value)
  if (typed === undefined) throw conversionFailure(value, to, 'it is not a number')
  return typed
}

function parsed(text: string, to: NumericType): TypedNumber {
  if (to === 'int' || to === 'long') {
    if (!/^[+-]?\d+$/.test(text)) throw conversionFailure(text, to, 'it is not a base-10 integer')
    return { type: 'long', value: BigInt(text) }
  }
  const decimal = parseDecimal(text)
  if (decimal === undefined) throw conversionFailure(text, to, 'it is not a number')
  return to === 'decimal' ? { type: 'decimal', value: decimal } : { type: 'double', value: Number(text.trim().replace(/^([+-]?)inf$/i, '$1Infinity')) }
}

/** An integer toward zero, from any typed number; NaN and infinity have none. */
function truncated(typed: TypedNumber, value: unknown, to: NumericType): bigint {
  switch (typed.type) {
    case 'int':
      return BigInt(typed.value)
    case 'long':
      return typed.value
    case 'double':
      if (!Number.isFinite(typed.value)) throw conversionFailure(value, to, 'it is NaN or infinite')
      return BigInt(Math.trunc(typed.value))
    case 'decimal': {
      const whole = roundDecimal(typed.value, 0, 'truncate')
      if (whole.kind !== 'finite') throw conversionFailure(value, to, 'it is NaN or infinite')
      const magnitude = whole.coefficient * 10n ** BigInt(Math.max(0, whole.exponent))
      return whole.negative ? -magnitude : magnitude
    }
  }
}

/** `$toBool` of a number: false for any zero, true otherwise (NaN included). */
export function numberToBool(number: TypedNumber): boolean {
  return number.type === 'decimal' ? !(number.value.kind === 'finite' && number.value.coefficient === 0n) : number.type === 'long' ? number.value !== 0n : number.value !== 0
}

/** `$toString` of a number: a decimal keeps its digits ("1.10"), a long all of them. */
export function numberToString(number: TypedNumber): string {
  switch (number.type) {
    case 'decimal':
      return toDecimal128(number.value).toString()
    case 'long':
      return number.value.toString()
    default:
      return String(number.value)
  }
}

/** `$toDate` of a number: its milliseconds since the epoch (an int is refused, as by MongoDB). */
export function numberToDate(number: TypedNumber): Date {
  if (number.type === 'int') throw conversionFailure(number.value, 'date', 'an int is not a date')
  return new Date(asDouble(number))
}

function conversionFailure(value: unknown, to: string, why: string) {
  return serverError(241, 'ConversionFailure', `Failed to convert ${String(value)} to ${to}: ${why}`)
}
