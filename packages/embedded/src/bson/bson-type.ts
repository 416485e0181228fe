import { isPlainObject } from '../document.js'
import { numericTypeOf } from '../numbers/numeric-type.js'

/**
 * The BSON type of a value as the engine holds it (numbers: numeric-type.ts), by MongoDB's numbers
 * and aliases: what `$type` tests (query) and answers (expression).
 */
export const BSON_TYPE_NUMBERS: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
}

const ALIASES: Record<number, string> = Object.fromEntries(Object.entries(BSON_TYPE_NUMBERS).map(([alias, code]) => [code, alias]))

const NUMERIC_CODES: Record<string, number> = { int: 16, long: 18, double: 1, decimal: 19 }

const CODES_BY_CLASS: Record<string, number> = {
  ObjectId: 7,
  Binary: 5,
  UUID: 5,
  BSONRegExp: 11,
  Timestamp: 17,
  MinKey: -1,
  MaxKey: 127,
  BSONSymbol: 14,
  DBRef: 3,
}

/** The BSON type number of a value; undefined for a missing one. */
export function bsonTypeNumber(value: unknown): number | undefined {
  const numeric = numericTypeOf(value)
  if (numeric !== undefined) return NUMERIC_CODES[numeric]
  if (value === undefined) return undefined
  if (value === null) return 10
  if (typeof value === 'string') return 2
  if (typeof value === 'boolean') return 8
  if (Array.isArray(value)) return 4
  if (value instanceof Date) return 9
  if (value instanceof RegExp) return 11
  if (value instanceof Uint8Array) return 5
  if (isPlainObject(value)) return 3
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (bsonType === 'Code') return (value as { scope?: unknown }).scope ? 15 : 13
  return typeof bsonType === 'string' ? (CODES_BY_CLASS[bsonType] ?? 3) : 3
}

/** The alias of a value's BSON type (`'int'`, `'long'`, `'objectId'`...); `'missing'` for no value. */
export function bsonTypeAlias(value: unknown): string {
  const code = bsonTypeNumber(value)
  return code === undefined ? 'missing' : ALIASES[code]!
}
