import type { ShapeNode } from '../shapes/model-shape.js'
import { isObjectId, isObjectIdHex, type ObjectIds, objectIdHex } from '../shapes/object-id.js'
import type { Document } from './driver-db.js'
import type { WireDoc } from './store.js'

/**
 * Converts between wire documents (`id`, 24-hex strings) and stored ones (`_id`, ObjectIds).
 * Inbound conversion follows the model's shape, so only fields declared as ObjectIds become
 * ObjectIds (of the store's driver, `ids`); outbound conversion is generic, so any stored ObjectId,
 * whatever bson made it, renders as a string.
 */
export function toStored(value: unknown, node: ShapeNode, ids: ObjectIds): unknown {
  if (value === null || value === undefined) return value
  switch (node.kind) {
    case 'objectId':
      return isObjectIdHex(value) ? ids.fromHex(value) : value
    case 'array':
      return Array.isArray(value) ? value.map((item) => toStored(item, node.item, ids)) : value
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value
      const out: Document = {}
      for (const [key, sub] of Object.entries(value as Document)) {
        const name = key === 'id' && node.isDocument ? '_id' : key
        // A null or absent document id means "let the database assign one".
        if (name === '_id' && node.isDocument && (sub === null || sub === undefined)) continue
        out[name] = toStored(sub, node.fields.get(name) ?? { kind: 'any' }, ids)
      }
      return out
    }
    default:
      return value
  }
}

export function toWire(doc: Document): WireDoc {
  return wireValue(doc) as WireDoc
}

function wireValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (isObjectId(value)) return objectIdHex(value)
  // An invalid Date (stored by another tool) has no ISO form: it is served as null, which the output fit reports.
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (Array.isArray(value)) return value.map(wireValue)
  if ('_bsontype' in value) return bsonValue(value as { _bsontype: string })
  const out: WireDoc = {}
  // Keys, not entries: a pair array per field is garbage a populated page makes a million of.
  for (const key of Object.keys(value)) out[key === '_id' ? 'id' : key] = wireValue((value as Record<string, unknown>)[key])
  return out
}

/**
 * Other BSON types (from another tool, or a real server with promotion off) become JSON-native values, so
 * what the serializer writes is true: numbers that fit a JavaScript number exactly become numbers, others
 * their decimal text; the rest renders through its own JSON form. The output fit then checks them
 * against the declared types.
 */
function bsonValue(value: { _bsontype: string }): unknown {
  switch (value._bsontype) {
    case 'Int32':
    case 'Double':
      return (value as unknown as { valueOf(): number }).valueOf()
    case 'Long': {
      const text = String(value)
      const number = Number(text)
      return Number.isSafeInteger(number) ? number : text
    }
    case 'Decimal128': {
      const text = String(value)
      const number = Number(text)
      return Number.isFinite(number) && sameDecimal(text, String(number)) ? number : text
    }
    default: {
      const json = (value as { toJSON?: () => unknown }).toJSON?.()
      return json === undefined ? String(value) : json
    }
  }
}

/** Whether two decimal texts denote the same number (`1.50` and `1.5`; exponent forms compare as text). */
function sameDecimal(a: string, b: string): boolean {
  const trim = (text: string) => (/^-?\d+\.\d+$/.test(text) ? text.replace(/0+$/, '').replace(/\.$/, '') : text)
  return trim(a) === trim(b)
}
