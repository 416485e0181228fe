import { asDouble, asExactDecimal } from './coerce-number.js'
import { compareDecimals } from './decimal-arithmetic.js'
import { fromDoubleExactly } from './decimal-number.js'
import { typedNumber } from './numeric-type.js'

/**
 * The JS number of exactly the same value as a number of any type (NumberLong(1), Double(1.0) and
 * NumberDecimal("1.00") are all 1), or undefined for a Long or a decimal that no double holds exactly
 * (2^53 + 1, 0.1), and for anything that is not a number. Equal values compare equal whatever their
 * types, so wherever only the value matters (a key, a filter's bound) this is the number to use.
 */
export function exactDouble(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  const typed = typedNumber(value)
  if (typed === undefined) return undefined
  const double = asDouble(typed)
  if (typed.type === 'long' && BigInt(double) !== typed.value) return undefined
  if (typed.type === 'decimal' && !Number.isNaN(double) && compareDecimals(fromDoubleExactly(double), asExactDecimal(typed)) !== 0) return undefined
  return double
}

/**
 * The value key (value-key.ts) of a number that is not a plain JS number: the key of the double of
 * the same value (`n1`), so that equal numbers of any types are one `_id` and one unique key, as on
 * the server. A Long or a decimal no double holds exactly is undefined: it keeps the key of its BSON
 * bytes, which is also the key earlier versions of the engine stored it under.
 */
export function numericKey(value: unknown): string | undefined {
  if (typeof value === 'number') return undefined
  const double = exactDouble(value)
  return double === undefined ? undefined : `n${Object.is(double, -0) ? 0 : double}`
}

/**
 * The key of a number of any type by its exact value, for a number no double holds exactly too (a
 * Long beyond 2^53 and the decimal of the same value share it); undefined for anything else.
 */
export function exactNumberKey(value: unknown): string | undefined {
  const typed = typeof value === 'number' ? undefined : typedNumber(value)
  if (typed === undefined) return undefined
  const key = numericKey(value)
  if (key !== undefined) return key
  const exact = asExactDecimal(typed)
  if (exact.kind !== 'finite') return undefined
  let { coefficient, exponent } = exact
  while (coefficient !== 0n && coefficient % 10n === 0n) {
    coefficient /= 10n
    exponent++
  }
  return `m${exact.negative ? '-' : ''}${coefficient}e${exponent}`
}
