import { DECIMAL_DIGITS, DECIMAL_NAN, type DecimalNumber, digitsOf, finite, type RoundingMode, roundAt } from './decimal-number.js'

/**
 * Exact arithmetic on decimals (decimal-number.ts): what MongoDB computes in Decimal128 when a
 * decimal is among the operands. NaN and the infinities follow IEEE 754 (NaN in, NaN out; infinity
 * minus infinity is NaN). Results may hold more than 34 digits until `toDecimal128` rounds them;
 * a quotient is rounded here, as it may have no end.
 */
type Finite = Extract<DecimalNumber, { kind: 'finite' }>

/** MongoDB's numeric order: NaN below every number and equal to itself; -0 equal to 0. */
export function compareDecimals(a: DecimalNumber, b: DecimalNumber): number {
  if (a.kind === 'nan' || b.kind === 'nan') return a.kind === b.kind ? 0 : a.kind === 'nan' ? -1 : 1
  const signA = signOf(a)
  const signB = signOf(b)
  if (signA !== signB) return signA < signB ? -1 : 1
  if (signA === 0) return 0
  const magnitude = compareMagnitudes(a, b)
  return signA < 0 ? -magnitude : magnitude
}

function signOf(value: DecimalNumber): number {
  if (value.kind === 'nan') return 0
  if (value.kind === 'finite' && value.coefficient === 0n) return 0
  return value.negative ? -1 : 1
}

function compareMagnitudes(a: DecimalNumber, b: DecimalNumber): number {
  if (a.kind === 'infinity' || b.kind === 'infinity') return a.kind === b.kind ? 0 : a.kind === 'infinity' ? 1 : -1
  const x = a as Finite
  const y = b as Finite
  // The power of ten of the leading digit settles most comparisons without scaling.
  const leadX = digitsOf(x.coefficient) + x.exponent
  const leadY = digitsOf(y.coefficient) + y.exponent
  if (leadX !== leadY) return leadX < leadY ? -1 : 1
  const [scaledX, scaledY] = aligned(x, y)
  return scaledX === scaledY ? 0 : scaledX < scaledY ? -1 : 1
}

/** Both coefficients at the smaller exponent. */
function aligned(x: Finite, y: Finite): [bigint, bigint, number] {
  const exponent = Math.min(x.exponent, y.exponent)
  return [x.coefficient * 10n ** BigInt(x.exponent - exponent), y.coefficient * 10n ** BigInt(y.exponent - exponent), exponent]
}

const signed = (value: Finite, coefficient: bigint) => (value.negative ? -coefficient : coefficient)

export function addDecimals(a: DecimalNumber, b: DecimalNumber): DecimalNumber {
  if (a.kind === 'nan' || b.kind === 'nan') return DECIMAL_NAN
  if (a.kind === 'infinity' || b.kind === 'infinity') {
    if (a.kind === 'infinity' && b.kind === 'infinity' && a.negative !== b.negative) return DECIMAL_NAN
    return a.kind === 'infinity' ? a : b
  }
  const [x, y, exponent] = aligned(a, b)
  const sum = signed(a, x) + signed(b, y)
  // IEEE: a zero sum is -0 only when both operands are negative.
  const negative = sum === 0n ? a.negative && b.negative : sum < 0n
  return finite(negative, sum < 0n ? -sum : sum, exponent)
}

export function negateDecimal(value: DecimalNumber): DecimalNumber {
  if (value.kind === 'nan') return value
  return value.kind === 'infinity' ? { kind: 'infinity', negative: !value.negative } : finite(!value.negative, value.coefficient, value.exponent)
}

export function absDecimal(value: DecimalNumber): DecimalNumber {
  return value.kind !== 'nan' && value.negative ? negateDecimal(value) : value
}

export function multiplyDecimals(a: DecimalNumber, b: DecimalNumber): DecimalNumber {
  if (a.kind === 'nan' || b.kind === 'nan') return DECIMAL_NAN
  const negative = a.negative !== b.negative
  if (a.kind === 'infinity' || b.kind === 'infinity') {
    const other = a.kind === 'infinity' ? b : a
    return other.kind === 'finite' && other.coefficient === 0n ? DECIMAL_NAN : { kind: 'infinity', negative }
  }
  return finite(negative, a.coefficient * b.coefficient, a.exponent + b.exponent)
}

/**
 * The quotient rounded to 34 digits (half to even); an exact quotient keeps the exponent IEEE calls
 * ideal (the dividend's minus the divisor's) when it can, so 1.0 / 2 is 0.5 and 6 / 2 is 3.
 */
export function divideDecimals(a: DecimalNumber, b: DecimalNumber): DecimalNumber {
  if (a.kind === 'nan' || b.kind === 'nan') return DECIMAL_NAN
  const negative = a.negative !== b.negative
  if (a.kind === 'infinity') return b.kind === 'infinity' ? DECIMAL_NAN : { kind: 'infinity', negative }
  if (b.kind === 'infinity') return finite(negative, 0n, 0)
  if (b.coefficient === 0n) return a.coefficient === 0n ? DECIMAL_NAN : { kind: 'infinity', negative }
  const ideal = a.exponent - b.exponent
  if (a.coefficient === 0n) return finite(negative, 0n, ideal)
  const shift = Math.max(0, DECIMAL_DIGITS + 2 + digitsOf(b.coefficient) - digitsOf(a.coefficient))
  const quotient = (a.coefficient * 10n ** BigInt(shift)) / b.coefficient
  const exact = quotient * b.coefficient === a.coefficient * 10n ** BigInt(shift)
  const settled = settle(quotient, ideal - shift, exact, ideal)
  return finite(negative, settled.coefficient, settled.exponent)
}

/**
 * A result computed with extra digits (a quotient, a root) made a decimal of 34 digits at most: an
 * exact one gives back trailing zeros down to the ideal exponent; an inexact one gets one more digit,
 * non-zero (what was cut off is above zero, so a tie is never mistaken), then is rounded half to even.
 */
function settle(coefficient: bigint, exponent: number, exact: boolean, ideal: number): { coefficient: bigint, exponent: number } {
  let digits = coefficient
  let at = exponent
  if (exact) {
    while (at < ideal && digits % 10n === 0n) {
      digits /= 10n
      at++
    }
  } else {
    digits = digits * 10n + 1n
    at--
  }
  const excess = digitsOf(digits) - DECIMAL_DIGITS
  return excess > 0 ? roundAt(digits, at, at + excess) : { coefficient: digits, exponent: at }
}

/** `a - b * trunc(a / b)`, exact, of `a`'s sign (fmod's rule, MongoDB's for `$mod`). */
export function moduloDecimals(a: DecimalNumber, b: DecimalNumber): DecimalNumber {
  if (a.kind === 'nan' || b.kind === 'nan' || a.kind === 'infinity') return DECIMAL_NAN
  if (b.kind === 'infinity') return a
  if (b.coefficient === 0n) return DECIMAL_NAN
  const [x, y, exponent] = aligned(a, b)
  return finite(a.negative, x % y, exponent)
}

/** The decimal rounded at `place` digits after the point (negative: before it), keeping that exponent. */
export function roundDecimal(value: DecimalNumber, place: number, mode: RoundingMode): DecimalNumber {
  if (value.kind !== 'finite' || value.exponent >= -place) return value
  const rounded = roundAt(value.coefficient, value.exponent, -place, mode, value.negative)
  return finite(value.negative, rounded.coefficient, rounded.exponent)
}

/** `value` to the power of an integer, exactly (negative powers divide). */
export function powDecimal(value: DecimalNumber, power: bigint): DecimalNumber {
  let result: DecimalNumber = finite(false, 1n, 0)
  let base = value
  let remaining = power < 0n ? -power : power
  while (remaining > 0n) {
    if (remaining % 2n === 1n) result = trimmed(multiplyDecimals(result, base))
    base = trimmed(multiplyDecimals(base, base))
    remaining /= 2n
  }
  return power < 0n ? divideDecimals(finite(false, 1n, 0), result) : result
}

/** A product cut back to 40 digits: repeated squaring would otherwise grow without bound. */
function trimmed(value: DecimalNumber): DecimalNumber {
  if (value.kind !== 'finite') return value
  const excess = digitsOf(value.coefficient) - (DECIMAL_DIGITS + 6)
  if (excess <= 0) return value
  const rounded = roundAt(value.coefficient, value.exponent, value.exponent + excess)
  return finite(value.negative, rounded.coefficient, rounded.exponent)
}

/** The square root to 34 digits (half to even); an exact root keeps the ideal exponent (half the operand's). */
export function sqrtDecimal(value: DecimalNumber): DecimalNumber {
  if (value.kind === 'nan') return value
  if (value.negative && !(value.kind === 'finite' && value.coefficient === 0n)) return DECIMAL_NAN
  if (value.kind === 'infinity') return value
  const ideal = Math.floor(value.exponent / 2)
  if (value.coefficient === 0n) return finite(value.negative, 0n, ideal)
  // Enough digits for 36 of the root, at an even exponent.
  let shift = Math.max(0, 2 * (DECIMAL_DIGITS + 2) - digitsOf(value.coefficient))
  if ((value.exponent - shift) % 2 !== 0) shift++
  const scaled = value.coefficient * 10n ** BigInt(shift)
  const root = integerSqrt(scaled)
  const settled = settle(root, (value.exponent - shift) / 2, root * root === scaled, ideal)
  return finite(false, settled.coefficient, settled.exponent)
}

function integerSqrt(value: bigint): bigint {
  if (value < 2n) return value
  let x = BigInt(Math.floor(Math.sqrt(Number(value))))
  // Newton's steps from the double's estimate, then settle on the floor.
  for (;;) {
    const next = (x + value / x) / 2n
    if (next === x || next === x + 1n) break
    x = next
  }
  while (x * x > value) x--
  while ((x + 1n) * (x + 1n) <= value) x++
  return x
}
