import { isObjectId, isObjectIdHex, objectIdHex } from '../shapes/object-id.js'
import { type Hint, hintAt } from './type-hints.js'

/** What a response is written in: the Data API's plain JSON, or canonical Extended JSON (`Accept: application/ejson`). */
export type ResponseFormat = 'json' | 'ejson'

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/** The format a request's `Accept` asks for: canonical Extended JSON for `application/ejson`, else JSON (the Data API's default). */
export function responseFormat(accept: string | undefined): ResponseFormat {
  return accept !== undefined && /(^|,)\s*application\/ejson\s*(;|,|$)/i.test(accept) ? 'ejson' : 'json'
}

/**
 * A value read from the database (BSON types as the driver gives them) or written by the routes (wire
 * form), as the Data API answered it (docs/data-api.md, Types). JSON: an ObjectId as its hex text, a
 * date as ISO text, an Int64 as a number, a Decimal128 as its text, a Binary (or a `byte` field's
 * base64 text) as `{ Subtype, Data }`.
 * Canonical Extended JSON: every value typed (`$oid`, `$date`, `$numberInt`...). Values the routes keep
 * as text or numbers are typed by the model's hints (type-hints.ts).
 */
export function encodeValue(value: unknown, hint: Hint, format: ResponseFormat): unknown {
  if (value === null || value === undefined) return null
  switch (typeof value) {
    case 'string':
      // Binary data the model keeps as base64 text is answered as the Data API answered a Binary, in either format.
      if (format === 'json') return hint?.kind === 'binary' && isBase64(value) ? { Subtype: 0, Data: value } : value
      return typedText(value, hint)
    case 'number':
      return format === 'ejson' ? typedNumber(value, hint) : value
    case 'boolean':
      return value
    case 'object':
      break
    default:
      return null
  }
  if (Array.isArray(value)) return value.map((item) => encodeValue(item, hint?.kind === 'array' ? hint.item : hint, format))
  if (value instanceof Date) return encodeDate(value, format)
  if (isObjectId(value)) {
    const hex = objectIdHex(value)
    return format === 'ejson' ? { $oid: hex } : hex
  }
  const type = (value as { _bsontype?: unknown })._bsontype
  if (typeof type === 'string') return bsonValue(value, type, format)
  const out: Record<string, unknown> = {}
  // A field without a value (a `$project` renaming a path the document lacks) is left out, as MongoDB does.
  for (const [key, sub] of Object.entries(value)) if (sub !== undefined) out[key] = encodeValue(sub, hintAt(hint, key), format)
  return out
}

function encodeDate(date: Date, format: ResponseFormat): unknown {
  if (Number.isNaN(date.getTime())) return null
  return format === 'ejson' ? { $date: { $numberLong: String(date.getTime()) } } : date.toISOString()
}

/** A text the model says stands for another type (an ObjectId, a date, binary data) in that type. */
function typedText(text: string, hint: Hint): unknown {
  switch (hint?.kind) {
    case 'objectId':
      return isObjectIdHex(text) ? { $oid: text.toLowerCase() } : text
    case 'date': {
      const date = new Date(text)
      return Number.isNaN(date.getTime()) ? text : encodeDate(date, 'ejson')
    }
    case 'binary':
      return isBase64(text) ? { $binary: { base64: text, subType: '00' } } : text
    default:
      return text
  }
}

const isBase64 = (text: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0

/** A number as the type the model declares, else as MongoDB would have stored it (an integer in 32 bits as Int32, a larger one as Int64). */
function typedNumber(number: number, hint: Hint): unknown {
  if (!Number.isFinite(number)) return { $numberDouble: String(number) }
  if (Object.is(number, -0)) return { $numberDouble: '-0.0' }
  const integer = Number.isInteger(number)
  // The canonical text of an integral double keeps its `.0` (below 1e21, where JavaScript writes no exponent).
  if (hint?.kind === 'double' || !integer) return { $numberDouble: integer && Math.abs(number) < 1e21 ? `${number}.0` : String(number) }
  if (Math.abs(number) >= 2 ** 63) return { $numberDouble: String(number) }
  if (hint?.kind === 'int64' || number < INT32_MIN || number > INT32_MAX) return { $numberLong: String(number) }
  return { $numberInt: String(number) }
}

/** A BSON value of another kind than ObjectId, as the Data API wrote it in each format. */
function bsonValue(value: object, type: string, format: ResponseFormat): unknown {
  const text = String(value)
  switch (type) {
    case 'Int32':
    case 'Double':
      return format === 'ejson' ? typedNumber((value as { valueOf(): number }).valueOf(), { kind: type === 'Int32' ? 'int32' : 'double' }) : (value as { valueOf(): number }).valueOf()
    case 'Long': {
      if (format === 'ejson') return { $numberLong: text }
      const number = Number(text)
      return Number.isSafeInteger(number) ? number : text
    }
    case 'Decimal128':
      return format === 'ejson' ? { $numberDecimal: text } : text
    case 'Binary': {
      const binary = value as { sub_type: number, toString(encoding: 'base64'): string }
      const base64 = binary.toString('base64')
      return format === 'ejson' ? { $binary: { base64, subType: binary.sub_type.toString(16).padStart(2, '0') } } : { Subtype: binary.sub_type, Data: base64 }
    }
    default:
      // Types the endpoint never writes (a Timestamp, a regular expression from another tool): their own JSON form.
      return (value as { toJSON?: () => unknown }).toJSON?.() ?? text
  }
}
