import type { Options } from 'mingo/types'
import { resolve } from 'mingo/util'
import { BSON_TYPE_NUMBERS, bsonTypeNumber } from '../bson/bson-type.js'
import { badValueError } from '../errors.js'
import { asBigInt } from '../numbers/coerce-number.js'
import { isNumeric, typedNumber } from '../numbers/numeric-type.js'

type Predicate = (doc: Record<string, unknown>) => boolean

/**
 * The query operators that test a value's BSON type or take numbers, as MongoDB answers them: mingo's
 * take any JS number for an int and a long (`$type: 'long'` matched 5) and know no Long, Double or
 * Decimal128 (numeric-type.ts).
 * - `$type`: a type by alias or number (or a list of them); `'number'` is any of the four numeric
 *   types. The value itself is tested; normalize-filter.ts adds the test of an array's elements.
 * - `$mod: [divisor, remainder]`: the value, of any numeric type, truncated to an integer; the
 *   divisor and remainder truncated too.
 * - `$size`: the array length, given as a number of any numeric type.
 */
export const NUMERIC_QUERY_OPERATORS = {
  $type(selector: string, value: unknown, _options: Options): Predicate {
    const tests = (Array.isArray(value) ? value : [value]).map(typeTest)
    return (doc) => {
      const found = resolve(doc, selector, { unwrapArray: true })
      return tests.some((test) => test(found))
    }
  },
  $mod(selector: string, value: unknown, _options: Options): Predicate {
    const [divisor, remainder] = modArguments(value)
    return (doc) => {
      const found = resolve(doc, selector, { unwrapArray: true })
      return (Array.isArray(found) ? found : [found]).some((item) => {
        const integer = truncatedInteger(item)
        return integer !== undefined && integer % divisor === remainder
      })
    }
  },
  $size(selector: string, value: unknown, _options: Options): Predicate {
    const size = typedNumber(value) === undefined ? Number.NaN : Number(value)
    if (!Number.isInteger(size) || size < 0) throw badValueError('$size needs a non-negative whole number')
    return (doc) => {
      const found = resolve(doc, selector, { unwrapArray: true })
      return Array.isArray(found) && found.length === size
    }
  },
}

function typeTest(alias: unknown): (value: unknown) => boolean {
  if (alias === 'number') return isNumeric
  const code = typeof alias === 'string' ? BSON_TYPE_NUMBERS[alias] : typedNumber(alias) === undefined ? undefined : Number(alias)
  if (code === undefined || !Object.values(BSON_TYPE_NUMBERS).includes(code)) {
    throw badValueError(typeof alias === 'string' ? `Unknown type name alias: ${alias}` : `Invalid numerical type code: ${String(alias)}`)
  }
  return (value) => bsonTypeNumber(value) === code
}

/** `[divisor, remainder]`, each truncated toward zero, as MongoDB reads `$mod`'s argument. */
function modArguments(value: unknown): [bigint, bigint] {
  if (!Array.isArray(value) || value.length < 2) throw badValueError('malformed mod, not enough elements')
  if (value.length > 2) throw badValueError('malformed mod, too many elements')
  const [divisor, remainder] = value.map(truncatedInteger)
  if (divisor === undefined) throw badValueError('malformed mod, divisor not a number')
  if (remainder === undefined) throw badValueError('malformed mod, remainder not a number')
  if (divisor === 0n) throw badValueError('divisor cannot be 0')
  return [divisor, remainder]
}

/** A number of any type toward zero, as an integer; undefined for NaN, infinity and anything else. */
function truncatedInteger(value: unknown): bigint | undefined {
  const typed = typedNumber(value)
  if (typed === undefined) return undefined
  if (typed.type === 'double' || typed.type === 'decimal') {
    const number = typed.type === 'double' ? typed.value : Number(value)
    return Number.isFinite(number) ? BigInt(Math.trunc(number)) : undefined
  }
  return asBigInt(typed)
}
