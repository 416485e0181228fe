import { asExactDecimal } from './coerce-number.js'
import { compareDecimals } from './decimal-arithmetic.js'
import { type TypedNumber, typedNumber } from './numeric-type.js'

/**
 * MongoDB's order of numbers of any types, by their exact values: a Long beyond 2^53 is above the
 * nearest double, a decimal 0.1 below the double 0.1 (0.1000000000000000055...). NaN is below every
 * other number and equal to itself; -0 equals 0. Two plain JS numbers compare directly.
 */
export function compareNumeric(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return compareDoubles(a, b)
  return compareTyped(typedNumber(a)!, typedNumber(b)!)
}

export function compareTyped(a: TypedNumber, b: TypedNumber): number {
  if (a.type === 'decimal' || b.type === 'decimal') return compareDecimals(asExactDecimal(a), asExactDecimal(b))
  if (typeof a.value === 'number' && typeof b.value === 'number') return compareDoubles(a.value, b.value)
  if (typeof a.value === 'bigint' && typeof b.value === 'bigint') return a.value === b.value ? 0 : a.value < b.value ? -1 : 1
  return typeof a.value === 'bigint' ? -compareDoubleToBigInt(b.value as number, a.value) : compareDoubleToBigInt(a.value as number, b.value as bigint)
}

export function compareDoubles(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : 1
  return a < b ? -1 : a > b ? 1 : 0
}

function compareDoubleToBigInt(double: number, integer: bigint): number {
  if (Number.isNaN(double)) return -1
  if (!Number.isFinite(double)) return double > 0 ? 1 : -1
  // An integral double converts exactly; any other lies strictly between its floor and the next integer.
  const floor = BigInt(Math.floor(double))
  if (floor !== integer) return floor < integer ? -1 : 1
  return Number.isInteger(double) ? 0 : 1
}

/** NaN of any numeric type (a double's, or a decimal's). */
export function isNaNNumber(value: unknown): boolean {
  if (typeof value === 'number') return Number.isNaN(value)
  const typed = typedNumber(value)
  return typed !== undefined && (typed.type === 'decimal' ? typed.value.kind === 'nan' : typed.type === 'double' && Number.isNaN(typed.value))
}

/** Equal numbers, of any types. */
export function sameNumber(a: unknown, b: unknown): boolean {
  return compareNumeric(a, b) === 0
}
