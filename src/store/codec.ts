import { ObjectId } from 'mongodb'
import type { ShapeNode } from '../schema/model-shape.js'
import type { Document } from './driver-db.js'
import type { WireDoc } from './store.js'

/**
 * Converts between wire documents (`id`, 24-hex strings) and stored ones (`_id`, ObjectIds).
 * Inbound conversion follows the model's shape, so only fields declared as ObjectIds become
 * ObjectIds; outbound conversion is generic, so any stored ObjectId renders as a string.
 */
export function toStored(value: unknown, node: ShapeNode): unknown {
  if (value === null || value === undefined) return value
  switch (node.kind) {
    case 'objectId':
      return typeof value === 'string' && ObjectId.isValid(value) && value.length === 24
        ? ObjectId.createFromHexString(value)
        : value
    case 'array':
      return Array.isArray(value) ? value.map((item) => toStored(item, node.item)) : value
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value
      const out: Document = {}
      for (const [key, sub] of Object.entries(value as Document)) {
        const name = key === 'id' && node.isDocument ? '_id' : key
        // A null or absent document id means "let the database assign one".
        if (name === '_id' && node.isDocument && (sub === null || sub === undefined)) continue
        out[name] = toStored(sub, node.fields.get(name) ?? { kind: 'any' })
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
  if (value instanceof ObjectId) return value.toHexString()
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(wireValue)
  // Other BSON types (Long, Decimal128, Binary...) from a real server render through their own JSON form.
  if ('_bsontype' in value) return bsonToJson(value)
  const out: WireDoc = {}
  for (const [key, sub] of Object.entries(value)) out[key === '_id' ? 'id' : key] = wireValue(sub)
  return out
}

function bsonToJson(value: object): unknown {
  const json = (value as { toJSON?: () => unknown }).toJSON?.()
  return json === undefined ? String(value) : json
}
