import { asBigInt, asDecimal, asDouble, widestType } from './coerce-number.js'
import { addDecimals, divideDecimals, moduloDecimals, multiplyDecimals, negateDecimal } from './decimal-arithmetic.js'
import { isZero } from './decimal-number.js'
import { decimal, double, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, int, long, type TypedNumber } from './numeric-type.js'

/**
 * MongoDB's arithmetic on typed numbers. The result has the widest operand type (int < long <
 * double < decimal), except that an int result past the int32 range is a long, and a long result
 * past the int64 range is, in an aggregation expression, a double (`'widen'`), and in an update
 * operator an error (`'refuse'`: the caller reports it, as MongoDB's "Failed to apply $inc").
 */
export type LongOverflow = 'widen' | 'refuse'

export class LongOverflowError extends Error {}

export function addTyped(a: TypedNumber, b: TypedNumber, overflow: LongOverflow = 'widen'): TypedNumber {
  return combine(a, b, overflow, (x, y) => x + y, (x, y) => x + y, addDecimals)
}

export function subtractTyped(a: TypedNumber, b: TypedNumber, overflow: LongOverflow = 'widen'): TypedNumber {
  return combine(a, b, overflow, (x, y) => x - y, (x, y) => x - y, (x, y) => addDecimals(x, negateDecimal(y)))
}

export function multiplyTyped(a: TypedNumber, b: TypedNumber, overflow: LongOverflow = 'widen'): TypedNumber {
  return combine(a, b, overflow, (x, y) => x * y, (x, y) => x * y, multiplyDecimals)
}

function combine(
  a: TypedNumber,
  b: TypedNumber,
  overflow: LongOverflow,
  integers: (x: bigint, y: bigint) => bigint,
  doubles: (x: number, y: number) => number,
  decimals: typeof addDecimals
): TypedNumber {
  const type = widestType(a, b)
  if (type === 'decimal') return decimal(decimals(asDecimal(a), asDecimal(b)))
  if (type === 'double') return double(doubles(asDouble(a), asDouble(b)))
  if (type === 'int') {
    // Two int32 operands: a double holds the exact result of +, - and * of them.
    const result = doubles(a.value as number, b.value as number)
    if (result >= INT32_MIN && result <= INT32_MAX) return int(result === 0 ? 0 : result)
    return long(BigInt(result))
  }
  const result = integers(asBigInt(a)!, asBigInt(b)!)
  if (result >= INT64_MIN && result <= INT64_MAX) return long(result)
  if (overflow === 'refuse') throw new LongOverflowError('int64 overflow')
  return double(doubles(asDouble(a), asDouble(b)))
}

/** `$divide`: a double, or a decimal when either operand is one. The caller refuses a zero divisor. */
export function divideTyped(a: TypedNumber, b: TypedNumber): TypedNumber {
  if (a.type === 'decimal' || b.type === 'decimal') return decimal(divideDecimals(asDecimal(a), asDecimal(b)))
  return double(asDouble(a) / asDouble(b))
}

export function isZeroTyped(number: TypedNumber): boolean {
  return number.type === 'decimal' ? isZero(number.value) : number.type === 'long' ? number.value === 0n : number.value === 0
}

/**
 * `$mod`, as MongoDB types it: a decimal when either operand is one; a double when the dividend is
 * one or the divisor is a double with a fraction (an integral double divisor does not make the result
 * a double); then a long when either is one; else an int. The sign follows the dividend. The caller
 * refuses a zero divisor.
 */
export function modTyped(a: TypedNumber, b: TypedNumber): TypedNumber {
  if (a.type === 'decimal' || b.type === 'decimal') return decimal(moduloDecimals(asDecimal(a), asDecimal(b)))
  if (a.type === 'double' || (b.type === 'double' && !Number.isInteger(b.value))) return double(asDouble(a) % asDouble(b))
  const x = asBigInt(a)!
  const y = asBigInt(b)!
  // x % -1 is 0 (and INT64_MIN % -1 must not overflow).
  const remainder = y === -1n ? 0n : x % y
  return a.type === 'long' || b.type === 'long' ? long(remainder) : int(Number(remainder))
}
