import { locationError } from '../errors.js'
import { asBigInt, asDecimal, asDouble, asExactDecimal } from '../numbers/coerce-number.js'
import { absDecimal, powDecimal, roundDecimal, sqrtDecimal } from '../numbers/decimal-arithmetic.js'
import { fromDouble, type RoundingMode, roundAt, toNumber } from '../numbers/decimal-number.js'
import { decimal, double, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, int, long, type TypedNumber } from '../numbers/numeric-type.js'

/**
 * MongoDB's one-operand arithmetic on typed numbers. `$abs`, `$ceil`, `$floor`, `$round` and
 * `$trunc` keep their operand's type (an int whose result leaves the int32 range becomes a long);
 * `$sqrt`, `$exp`, `$ln`, `$log10` and `$log` answer a double, or a decimal for a decimal operand;
 * `$pow` of integers stays an integer while it fits. Errors carry MongoDB's codes.
 */
export function absTyped(number: TypedNumber): TypedNumber {
  switch (number.type) {
    case 'int':
      return number.value === INT32_MIN ? long(-BigInt(INT32_MIN)) : int(Math.abs(number.value))
    case 'long':
      if (number.value === INT64_MIN) throw locationError(28680, "can't take $abs of long long min")
      return long(number.value < 0n ? -number.value : number.value)
    case 'double':
      return double(Math.abs(number.value))
    case 'decimal':
      return decimal(absDecimal(number.value))
  }
}

/** `$round` (half to even), `$trunc`, `$ceil` and `$floor` at `place` digits after the point (negative: before it). */
export function roundTyped(number: TypedNumber, place: number, mode: RoundingMode): TypedNumber {
  switch (number.type) {
    case 'decimal':
      return decimal(roundDecimal(number.value, place, mode))
    case 'double':
      // Rounded from the double's exact value: 2.5 rounds to 2, 0.125 at 2 places to 0.12.
      return Number.isFinite(number.value) ? double(toNumber(roundDecimal(asExactDecimal(number), place, mode))) : number
    default: {
      if (place >= 0) return number
      const value = asBigInt(number)!
      const rounded = roundAt(value < 0n ? -value : value, 0, -place, mode, value < 0n)
      const result = (value < 0n ? -rounded.coefficient : rounded.coefficient) * 10n ** BigInt(-place)
      if (number.type === 'int' && result >= BigInt(INT32_MIN) && result <= BigInt(INT32_MAX)) return int(Number(result))
      return result >= INT64_MIN && result <= INT64_MAX ? long(result) : double(Number(result))
    }
  }
}

/** `$pow`: exact for integer and decimal bases with an integer power; a double otherwise. */
export function powTyped(base: TypedNumber, power: TypedNumber): TypedNumber {
  const integralPower = asBigInt(power) ?? (power.type === 'decimal' ? integralDecimal(power) : undefined)
  if (base.type === 'decimal' || power.type === 'decimal') {
    if (integralPower !== undefined && (integralPower < 0n ? -integralPower : integralPower) <= 10000n) return decimal(powDecimal(asDecimal(base), integralPower))
    return decimal(fromDouble(asDouble(base) ** asDouble(power)))
  }
  if (base.type === 'double' || power.type === 'double') return double(asDouble(base) ** asDouble(power))
  const x = asBigInt(base)!
  const n = integralPower!
  if (n < 0n) {
    if (x === 0n) throw locationError(28764, '$pow cannot take a base of 0 and a negative exponent')
    // 1 and -1 stay integers; any other base has a fraction.
    if (x === 1n || x === -1n) return integer(n % 2n === 0n ? 1n : x, base.type === 'int' && power.type === 'int')
    return double(Number(x) ** Number(n))
  }
  const magnitude = x < 0n ? -x : x
  if (magnitude > 1n && n > 64n) return double(Number(x) ** Number(n))
  return integer(x ** n, base.type === 'int' && power.type === 'int', () => Number(x) ** Number(n))
}

/** An integer result: an int when both operands were ints and it fits, else a long while it fits, else a double. */
function integer(value: bigint, ints: boolean, asDoubleResult = () => Number(value)): TypedNumber {
  if (ints && value >= BigInt(INT32_MIN) && value <= BigInt(INT32_MAX)) return int(Number(value))
  return value >= INT64_MIN && value <= INT64_MAX ? long(value) : double(asDoubleResult())
}

function integralDecimal(number: TypedNumber): bigint | undefined {
  const value = asDecimal(number)
  if (value.kind !== 'finite') return undefined
  if (value.exponent >= 0) return value.exponent > 6 ? undefined : (value.negative ? -1n : 1n) * value.coefficient * 10n ** BigInt(value.exponent)
  const divisor = 10n ** BigInt(-value.exponent)
  return value.coefficient % divisor === 0n ? (value.negative ? -1n : 1n) * (value.coefficient / divisor) : undefined
}

export function sqrtTyped(number: TypedNumber): TypedNumber {
  if (asDouble(number) < 0) throw locationError(28714, "$sqrt's argument must be greater than or equal to 0")
  return number.type === 'decimal' ? decimal(sqrtDecimal(number.value)) : double(Math.sqrt(asDouble(number)))
}

/**
 * `$exp`, `$ln`, `$log10` and `$log` through a double: a decimal operand gets a decimal answer of
 * the double's 15 significant digits (MongoDB computes 34; exact results, such as `$log10` of 100,
 * are the same).
 */
export function transcendental(number: TypedNumber, fn: (x: number) => number, others: TypedNumber[] = []): TypedNumber {
  const result = fn(asDouble(number))
  return number.type === 'decimal' || others.some((other) => other.type === 'decimal') ? decimal(fromDouble(result)) : double(result)
}
