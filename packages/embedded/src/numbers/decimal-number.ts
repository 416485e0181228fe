import { Decimal128 } from 'mongodb'

/**
 * Decimal128 arithmetic, which the BSON library does not have: a decimal is a sign, a coefficient
 * (BigInt) and a power of ten, so sums, differences, products and comparisons are exact, and a
 * result is rounded (half to even, IEEE 754-2008's default, MongoDB's) to Decimal128's 34 digits
 * only when it is stored as one (`toDecimal128`). Quotients are rounded to 34 digits as computed.
 * `negative` is kept apart from the coefficient so that -0 stays -0.
 */
export type DecimalNumber =
  | { readonly kind: 'finite', readonly negative: boolean, readonly coefficient: bigint, readonly exponent: number }
  | { readonly kind: 'infinity', readonly negative: boolean }
  | { readonly kind: 'nan' }

export const DECIMAL_DIGITS = 34
const MAX_EXPONENT = 6111
const MIN_EXPONENT = -6176

export const DECIMAL_NAN: DecimalNumber = { kind: 'nan' }

export function finite(negative: boolean, coefficient: bigint, exponent: number): DecimalNumber {
  return { kind: 'finite', negative, coefficient, exponent }
}

/** A decimal's value from its text (Decimal128's `toString`, or a client's string): undefined when it is not a number. */
export function parseDecimal(text: string): DecimalNumber | undefined {
  const trimmed = text.trim()
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(trimmed)
  if (special) return special[2]!.toLowerCase() === 'nan' ? DECIMAL_NAN : { kind: 'infinity', negative: special[1] === '-' }
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(trimmed)
  if (match === null) return undefined
  const [, sign, whole = '', fraction = '', exponent = '0'] = match
  if (whole === '' && fraction === '') return undefined
  return finite(sign === '-', BigInt(`${whole}${fraction}` || '0'), Number(exponent) - fraction.length)
}

export function fromDecimal128(value: Decimal128): DecimalNumber {
  return parseDecimal(value.toString()) ?? DECIMAL_NAN
}

export function fromBigInt(value: bigint): DecimalNumber {
  return finite(value < 0n, value < 0n ? -value : value, 0)
}

/**
 * A double as a decimal of 15 significant digits, as MongoDB converts one ("2.5" becomes
 * 2.50000000000000): a double holds no more decimal digits than that reliably.
 */
export function fromDouble(value: number): DecimalNumber {
  if (Number.isNaN(value)) return DECIMAL_NAN
  if (!Number.isFinite(value)) return { kind: 'infinity', negative: value < 0 }
  if (value === 0) return finite(Object.is(value, -0), 0n, 0)
  return parseDecimal(value.toPrecision(15))!
}

/** A double's exact value (every finite double is a finite decimal): for comparisons, never for results. */
export function fromDoubleExactly(value: number): DecimalNumber {
  if (!Number.isFinite(value)) return fromDouble(value)
  // value = m / 2^k exactly, m an integer: m * 5^k / 10^k. Doubling a double is exact.
  let scaled = Math.abs(value)
  let k = 0
  while (!Number.isInteger(scaled)) {
    scaled *= 2
    k++
  }
  return finite(value < 0 || Object.is(value, -0), BigInt(scaled) * 5n ** BigInt(k), -k)
}

export function toNumber(value: DecimalNumber): number {
  if (value.kind === 'nan') return Number.NaN
  if (value.kind === 'infinity') return value.negative ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
  const number = Number(`${value.coefficient}e${value.exponent}`)
  return value.negative ? -number : number
}

export function isZero(value: DecimalNumber): boolean {
  return value.kind === 'finite' && value.coefficient === 0n
}

/** The decimal as Decimal128 stores it: 34 digits at most, rounded half to even; past its range, infinity or zero. */
export function toDecimal128(value: DecimalNumber): Decimal128 {
  if (value.kind === 'nan') return Decimal128.fromString('NaN')
  if (value.kind === 'infinity') return Decimal128.fromString(value.negative ? '-Infinity' : 'Infinity')
  let { coefficient, exponent } = roundToDigits(value.coefficient, value.exponent, DECIMAL_DIGITS)
  if (exponent < MIN_EXPONENT) ({ coefficient, exponent } = roundAt(coefficient, exponent, MIN_EXPONENT))
  while (exponent > MAX_EXPONENT && coefficient !== 0n && digitsOf(coefficient) < DECIMAL_DIGITS) {
    coefficient *= 10n
    exponent--
  }
  if (exponent > MAX_EXPONENT) {
    if (coefficient !== 0n) return Decimal128.fromString(value.negative ? '-Infinity' : 'Infinity')
    exponent = MAX_EXPONENT
  }
  return Decimal128.fromString(`${value.negative ? '-' : ''}${coefficient}E${exponent}`)
}

export function digitsOf(value: bigint): number {
  return value === 0n ? 1 : (value < 0n ? -value : value).toString().length
}

/** `coefficient * 10^exponent` with at most `digits` digits, rounded half to even. */
function roundToDigits(coefficient: bigint, exponent: number, digits: number): { coefficient: bigint, exponent: number } {
  const excess = digitsOf(coefficient) - digits
  return excess > 0 ? roundAt(coefficient, exponent, exponent + excess) : { coefficient, exponent }
}

/** `coefficient * 10^exponent` rounded half to even to a multiple of 10^`at` (`at` >= `exponent`). */
export function roundAt(coefficient: bigint, exponent: number, at: number, mode: RoundingMode = 'half-even', negative = false): { coefficient: bigint, exponent: number } {
  if (at <= exponent) return { coefficient, exponent }
  const divisor = 10n ** BigInt(at - exponent)
  let quotient = coefficient / divisor
  const remainder = coefficient % divisor
  if (remainder !== 0n && roundsUp(mode, remainder * 2n, divisor, quotient, negative)) quotient++
  return { coefficient: quotient, exponent: at }
}

/** How a dropped remainder rounds a magnitude: to even ($round), toward zero ($trunc), or away from zero toward ±infinity ($ceil, $floor). */
export type RoundingMode = 'half-even' | 'truncate' | 'ceiling' | 'floor'

function roundsUp(mode: RoundingMode, twiceRemainder: bigint, divisor: bigint, quotient: bigint, negative: boolean): boolean {
  switch (mode) {
    case 'half-even':
      return twiceRemainder > divisor || (twiceRemainder === divisor && quotient % 2n === 1n)
    case 'truncate':
      return false
    case 'ceiling':
      return !negative
    case 'floor':
      return negative
  }
}
