import { BSON } from 'mongodb'
import { isObjectId, objectIdHex } from '../shapes/object-id.js'
import { invalidParameter } from './data-api-error.js'

/** Nesting past which a body is refused: MongoDB's own limit on a document's depth is 100. */
const MAX_DEPTH = 100

/**
 * A request body as the routes' checks read values: Extended JSON, relaxed or canonical, turned into
 * the library's wire form (docs/data-api.md, Types). An ObjectId becomes its 24-hex text (the model's
 * ObjectId fields store it as one), a date its ISO text (a `date-time` field), an Int32, a Double or a
 * Long that fits 2^53 a number, a Decimal128 a number where one holds it exactly (else its text), a
 * Binary its base64 text (a `byte` field), a regular expression the `$regex` operator (the grammar's,
 * and Extended JSON's legacy form of one). Every other BSON type is refused, naming it: the closed
 * grammar and the models take none. Parsed canonically (`relaxed: false`), so a `$numberLong` past 2^53
 * is seen whole and refused rather than rounded.
 */
export function parseEjsonBody(text: string): unknown {
  if (text.trim() === '') throw invalidParameter('the request has no body: send a JSON object naming dataSource, database and collection')
  let parsed: unknown
  try {
    parsed = BSON.EJSON.parse(text, { relaxed: false })
  } catch (error) {
    throw invalidParameter(`the body is not valid Extended JSON: ${(error as Error).message}`)
  }
  return toWireValue(parsed, 0)
}

function toWireValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value
  if (depth > MAX_DEPTH) throw invalidParameter(`the body is nested deeper than ${MAX_DEPTH} levels`)
  if (Array.isArray(value)) return value.map((item) => toWireValue(item, depth + 1))
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalidParameter('a $date is not a valid date')
    return value.toISOString()
  }
  const type = (value as { _bsontype?: unknown })._bsontype
  if (typeof type === 'string') return bsonValue(value, type)
  const out: Record<string, unknown> = {}
  for (const [key, sub] of Object.entries(value)) {
    // JSON.parse makes `__proto__` an own key; copying it by assignment would set a prototype.
    if (key === '__proto__') throw invalidParameter('the key "__proto__" is not allowed')
    out[key] = toWireValue(sub, depth + 1)
  }
  return out
}

function bsonValue(value: object, type: string): unknown {
  if (isObjectId(value)) return objectIdHex(value).toLowerCase()
  switch (type) {
    case 'Int32':
    case 'Double':
      return (value as { valueOf(): number }).valueOf()
    case 'Long': {
      const number = Number(String(value))
      if (!Number.isSafeInteger(number)) throw invalidParameter(`the $numberLong ${String(value)} is beyond 2^53, which a JSON number holds exactly: send it as a string field`)
      return number
    }
    case 'Decimal128': {
      const text = String(value)
      const number = Number(text)
      return Number.isFinite(number) && sameDecimal(text, String(number)) ? number : text
    }
    case 'Binary':
      return (value as { toString(encoding: 'base64'): string }).toString('base64')
    case 'BSONRegExp': {
      // `{ "$regex": "^a", "$options": "i" }` is Extended JSON's legacy form of a regular expression:
      // written back as the operator it came as, which the filter grammar checks (RE2, length, options).
      const { pattern, options } = value as { pattern: string, options: string }
      return options === '' ? { $regex: pattern } : { $regex: pattern, $options: options }
    }
    default:
      throw invalidParameter(`the Extended JSON type ${type} is not supported here (ObjectId, Date, Int32, Int64, Double, Decimal128 and Binary are)`)
  }
}

/** Whether two decimal texts denote the same number (`1.50` and `1.5`); exponent forms compare as text. */
function sameDecimal(a: string, b: string): boolean {
  const trim = (text: string) => (/^-?\d+\.\d+$/.test(text) ? text.replace(/0+$/, '').replace(/\.$/, '') : text)
  return trim(a) === trim(b)
}
