import { type Decimal128, Double, type Int32, Long } from 'mongodb'
import { type DecimalNumber, fromDecimal128, toDecimal128 } from './decimal-number.js'

/**
 * How the engine holds the four numeric BSON types in a document, so that each survives storage,
 * queries, updates and aggregation as MongoDB keeps it:
 * - int32: a JS number that is an integer of the int32 range (not -0), as the driver writes one;
 * - double: any other JS number, or a `Double` when its value would read as an int32 (`10.0`);
 * - int64: always a `Long`, whatever its value;
 * - decimal128: a `Decimal128`.
 * BSON encodes each back to its own type. `Int32` (and a `Double` of another value) from a caller is
 * understood too. Arithmetic works on `TypedNumber`, the type and an exact value.
 */
export type NumericType = 'int' | 'long' | 'double' | 'decimal'

export type TypedNumber =
  | { readonly type: 'int', readonly value: number }
  | { readonly type: 'long', readonly value: bigint }
  | { readonly type: 'double', readonly value: number }
  | { readonly type: 'decimal', readonly value: DecimalNumber }

export const INT32_MIN = -2147483648
export const INT32_MAX = 2147483647
export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

/** A JS number that BSON encodes as an int32. */
export function isInt32Number(value: number): boolean {
  return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX && !Object.is(value, -0)
}

function bsonTypeOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { _bsontype?: unknown })._bsontype : undefined
}

/** A numeric value's BSON type, undefined for anything else. */
export function numericTypeOf(value: unknown): NumericType | undefined {
  if (typeof value === 'number') return isInt32Number(value) ? 'int' : 'double'
  if (typeof value === 'bigint') return 'long'
  switch (bsonTypeOf(value)) {
    case 'Long':
      return 'long'
    case 'Double':
      return 'double'
    case 'Int32':
      return 'int'
    case 'Decimal128':
      return 'decimal'
  }
  return undefined
}

export function isNumeric(value: unknown): boolean {
  return numericTypeOf(value) !== undefined
}

/** A numeric value as a JS number would compare: not a plain number (a Long, a Double...). */
export function isNumericObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && numericTypeOf(value) !== undefined
}

/** The type and exact value of a numeric value; undefined for anything else. */
export function typedNumber(value: unknown): TypedNumber | undefined {
  if (typeof value === 'number') return isInt32Number(value) ? { type: 'int', value } : { type: 'double', value }
  if (typeof value === 'bigint') return { type: 'long', value }
  switch (bsonTypeOf(value)) {
    case 'Long':
      return { type: 'long', value: (value as Long).toBigInt() }
    case 'Double':
      return { type: 'double', value: (value as Double).value }
    case 'Int32':
      return { type: 'int', value: (value as Int32).value }
    case 'Decimal128':
      return { type: 'decimal', value: fromDecimal128(value as Decimal128) }
  }
  return undefined
}

/** A double as the engine holds it: a plain number, or a `Double` when the number would read as an int32. */
export function heldDouble(value: number): number | Double {
  return isInt32Number(value) ? new Double(value) : value
}

/** A typed number as the engine holds it in a document (see above). */
export function heldNumber(number: TypedNumber): unknown {
  switch (number.type) {
    case 'int':
      return number.value
    case 'long':
      return Long.fromBigInt(number.value)
    case 'double':
      return heldDouble(number.value)
    case 'decimal':
      return toDecimal128(number.value)
  }
}

export const int = (value: number): TypedNumber => ({ type: 'int', value })
export const long = (value: bigint): TypedNumber => ({ type: 'long', value })
export const double = (value: number): TypedNumber => ({ type: 'double', value })
export const decimal = (value: DecimalNumber): TypedNumber => ({ type: 'decimal', value })
