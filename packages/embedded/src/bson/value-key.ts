import { BSON } from 'mongodb'

/**
 * A canonical string for a BSON value, equal for values the server treats as equal keys.
 * Used as the storage key of a document (from its `_id`) and as the key of unique indexes.
 *
 * All JS numbers share one prefix, so 1 (int32) and 1.0 (double) collide as on the server.
 * `null` and a missing field share one key (server semantics for unique indexes).
 * Objects keep field order, as BSON equality does. Rarer types fall back to their BSON bytes.
 */
export function toValueKey(value: unknown): string {
  if (value === null || value === undefined) return 'z'
  switch (typeof value) {
    case 'string':
      return `s${value}`
    case 'number':
      return `n${Object.is(value, -0) ? 0 : value}`
    case 'boolean':
      return value ? 'bt' : 'bf'
  }
  if (value instanceof Date) return `d${value.getTime()}`
  if ((value as { _bsontype?: unknown })._bsontype === 'ObjectId') return `o${String(value)}`
  const bytes = BSON.serialize({ v: value }, { ignoreUndefined: false })
  return `x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`
}
