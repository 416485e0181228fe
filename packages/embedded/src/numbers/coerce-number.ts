import { type DecimalNumber, fromBigInt, fromDouble, fromDoubleExactly, toNumber } from './decimal-number.js'
import type { NumericType, TypedNumber } from './numeric-type.js'

/**
 * A typed number's value in a wider type, as MongoDB widens an operand to the widest type among
 * them (int < long < double < decimal): a long as a double rounds past 2^53, a double as a decimal
 * keeps 15 significant digits (MongoDB's conversion), a decimal as a double rounds to the nearest.
 */
const WIDTH: Record<NumericType, number> = { int: 0, long: 1, double: 2, decimal: 3 }

export function widestType(a: TypedNumber, b: TypedNumber): NumericType {
  return WIDTH[a.type] >= WIDTH[b.type] ? a.type : b.type
}

export function asDouble(number: TypedNumber): number {
  switch (number.type) {
    case 'int':
    case 'double':
      return number.value
    case 'long':
      return Number(number.value)
    case 'decimal':
      return toNumber(number.value)
  }
}

export function asDecimal(number: TypedNumber): DecimalNumber {
  switch (number.type) {
    case 'int':
      return fromBigInt(BigInt(number.value))
    case 'long':
      return fromBigInt(number.value)
    case 'double':
      return fromDouble(number.value)
    case 'decimal':
      return number.value
  }
}

/** The exact value as a decimal (a double's full binary expansion): what comparisons use. */
export function asExactDecimal(number: TypedNumber): DecimalNumber {
  return number.type === 'double' ? fromDoubleExactly(number.value) : asDecimal(number)
}

/** An int or long's value; a double's when it is an integer (else undefined). */
export function asBigInt(number: TypedNumber): bigint | undefined {
  switch (number.type) {
    case 'int':
      return BigInt(number.value)
    case 'long':
      return number.value
    case 'double':
      return Number.isInteger(number.value) ? BigInt(number.value) : undefined
    case 'decimal':
      return undefined
  }
}
