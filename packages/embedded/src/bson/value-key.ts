import { BSON } from 'mongodb'
import { isPlainObject } from '../document.js'
import { exactNumberKey, numericKey } from '../numbers/numeric-key.js'
import { objectIdKey } from './object-id-key.js'

/**
 * A canonical string for a BSON value, equal for values the server treats as equal keys.
 * Used as the storage key of a document (from its `_id`) and as the key of unique indexes.
 *
 * Numbers of every type share one prefix and key by value (numeric-key.ts), so 1 (int32), 1.0
 * (double), NumberLong(1) and NumberDecimal("1.0") collide as on the server.
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
  const number = numericKey(value)
  if (number !== undefined) return number
  if ((value as { _bsontype?: unknown })._bsontype === 'ObjectId') return objectIdKey(value as object)
  const bytes = BSON.serialize({ v: value }, { ignoreUndefined: false })
  return `x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`
}

/**
 * A key equal for values MongoDB's equality finds equal, at any depth: numbers by value whatever
 * their BSON types (NumberLong(1), 1 and Double(1.0); a Long beyond 2^53 and the decimal of the same
 * value), documents (field order kept) and arrays by their members' keys. What `$group` groups by
 * and what `$lookup` joins on (value-group.ts, value-lookup.ts).
 */
export function toMatchKey(value: unknown): string {
  if (Array.isArray(value)) return `a${JSON.stringify(value.map(toMatchKey))}`
  if (isPlainObject(value)) return `o${JSON.stringify(Object.entries(value).map(([name, field]) => [name, toMatchKey(field)]))}`
  return exactNumberKey(value) ?? toValueKey(value)
}
