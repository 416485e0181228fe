import assert from 'node:assert/strict'
import { Decimal128, Double, Int32, Long } from 'mongodb'

/**
 * The four numeric BSON types as a test writes them, and how a test compares them: by type and by
 * value. A read with `promoteValues: false` (the driver's option, and the engine's) answers every
 * number as its BSON type's class, so `int(5)` and `long(5)` are told apart, as MongoDB tells them.
 */
export const int = (value: number): Int32 => new Int32(value)
export const long = (value: number | string): Long => (typeof value === 'string' ? Long.fromString(value) : Long.fromNumber(value))
export const double = (value: number): Double => new Double(value)
export const decimal = (value: string): Decimal128 => Decimal128.fromString(value)

/**
 * A value's BSON type and exact value, as one string: `int 5`, `long 9007199254740993`, `double 10`,
 * `decimal 25e-1`. A decimal is compared by value, not by its digits: MongoDB's decimal results keep
 * exponents a test need not pin (`1.5 * 2` is `3.0`), and "2.50" and "2.5" are the same number.
 * Anything else is its JSON, arrays and documents walked.
 */
export function typed(value: unknown): string {
  if (value instanceof Int32) return `int ${value.value}`
  if (value instanceof Long) return `long ${value.toString()}`
  if (value instanceof Double) return `double ${doubleText(value.value)}`
  if (value instanceof Decimal128) return `decimal ${decimalText(value.toString())}`
  // A plain number is what a promoting read answers: a test of types never expects one.
  if (typeof value === 'number') return `number ${doubleText(value)}`
  if (Array.isArray(value)) return `[${value.map(typed).join(', ')}]`
  if (value instanceof Date) return `date ${value.getTime()}`
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return `{${Object.entries(value).map(([key, field]) => `${key}: ${typed(field)}`).join(', ')}}`
  }
  return JSON.stringify(value) ?? String(value)
}

/** Same BSON type, same value (documents and arrays compared field by field). */
export function assertTyped(actual: unknown, expected: unknown, message?: string): void {
  assert.equal(typed(actual), typed(expected), message)
}

function doubleText(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value)
}

/** A decimal's value as `<digits>e<exponent>`, its coefficient without trailing zeros ("0" for any zero). */
function decimalText(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:E([+-]?\d+))?$/i.exec(text)
  if (match === null) return text
  const [, sign, whole, fraction = '', exponent = '0'] = match
  let digits = `${whole}${fraction}`.replace(/^0+/, '')
  let power = Number(exponent) - fraction.length
  if (digits === '') return `${sign}0`
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1)
    power++
  }
  return `${sign}${digits}e${power}`
}
