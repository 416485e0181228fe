import { compareNumeric } from '../numbers/compare-numbers.js'

/**
 * MongoDB's total order over BSON values (the "comparison/sort order" of the manual):
 * MinKey < null/missing < numbers < strings < objects < arrays < BinData < ObjectId < booleans
 * < dates < timestamps < regular expressions < MaxKey.
 *
 * mingo's own comparator ranks `undefined` below `null` and places ObjectId after every other
 * type, so sorting uses this one instead. Numbers of every type compare by their exact values
 * (compare-numbers.ts): a Long beyond 2^53 is never mistaken for the nearest double.
 *
 * `strings` orders two strings (values, never field names): binary by default, a collation's
 * order when an operation has one (collation.ts).
 */
export function compareBson(a: unknown, b: unknown, strings: StringOrder = compareStrings): number {
  const rankA = rankOf(a)
  const rankB = rankOf(b)
  if (rankA !== rankB) return rankA < rankB ? -1 : 1
  switch (rankA) {
    case Rank.Number:
      return compareNumeric(a, b)
    case Rank.String:
      return strings(String(a), String(b))
    case Rank.Object:
      return compareEntries(Object.entries(a as object), Object.entries(b as object), strings)
    case Rank.Array:
      return compareEntries(Object.entries(a as unknown[]), Object.entries(b as unknown[]), strings)
    case Rank.Binary:
      return compareBinary(a as BinaryLike, b as BinaryLike)
    case Rank.ObjectId:
      return compareObjectIds(a as Record<string, unknown>, b as Record<string, unknown>)
    case Rank.Boolean:
      return compareNumbers(Number(a), Number(b))
    case Rank.Date:
      return compareNumbers((a as Date).getTime(), (b as Date).getTime())
    case Rank.Timestamp:
      return compareTimestamps(a as TimestampLike, b as TimestampLike)
    case Rank.RegExp:
      return compareEntries(regexParts(a), regexParts(b))
    default:
      return 0
  }
}

type StringOrder = (a: string, b: string) => number

/** Each type's place in the order (index-keys.ts turns it into its key byte). */
export const Rank = {
  MinKey: 1,
  Null: 2,
  Number: 3,
  String: 4,
  Object: 5,
  Array: 6,
  Binary: 7,
  ObjectId: 8,
  Boolean: 9,
  Date: 10,
  Timestamp: 11,
  RegExp: 12,
  MaxKey: 13,
} as const

const RANK_BY_BSON_TYPE: Record<string, number> = {
  MinKey: Rank.MinKey,
  MaxKey: Rank.MaxKey,
  Long: Rank.Number,
  Int32: Rank.Number,
  Double: Rank.Number,
  Decimal128: Rank.Number,
  BSONSymbol: Rank.String,
  Binary: Rank.Binary,
  ObjectId: Rank.ObjectId,
  Timestamp: Rank.Timestamp,
  BSONRegExp: Rank.RegExp,
}

/** A value's type rank in the BSON order; missing (undefined) ranks as null. */
export function rankOf(value: unknown): number {
  if (value === null || value === undefined) return Rank.Null
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return Rank.Number
    case 'string':
      return Rank.String
    case 'boolean':
      return Rank.Boolean
  }
  if (Array.isArray(value)) return Rank.Array
  if (value instanceof Date) return Rank.Date
  if (value instanceof RegExp) return Rank.RegExp
  if (value instanceof Uint8Array) return Rank.Binary
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (typeof bsonType === 'string') return RANK_BY_BSON_TYPE[bsonType] ?? Rank.Object
  return Rank.Object
}

function compareNumbers(a: number, b: number): number {
  // The server orders NaN below every other number.
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : 1
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Binary (UTF-8 byte) order, as the server compares strings without a collation. Comparing
 * UTF-16 code units differs from it only around surrogates; remapping them fixes that.
 */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return toCodePointOrder(x) < toCodePointOrder(y) ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

function toCodePointOrder(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000
  if (unit >= 0xe000) return unit - 0x800
  return unit
}

/** Embedded documents and arrays compare field by field: type, then name, then value. */
function compareEntries(a: [string, unknown][], b: [string, unknown][], strings: StringOrder = compareStrings): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const [keyA, valueA] = a[i]!
    const [keyB, valueB] = b[i]!
    const byType = rankOf(valueA) - rankOf(valueB)
    if (byType !== 0) return byType < 0 ? -1 : 1
    const byName = compareStrings(keyA, keyB)
    if (byName !== 0) return byName
    const byValue = compareBson(valueA, valueB, strings)
    if (byValue !== 0) return byValue
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

interface BinaryLike {
  sub_type?: number
  buffer?: Uint8Array
  length?: number
}

/** BinData: shorter first, then by subtype, then byte by byte. */
function compareBinary(a: BinaryLike, b: BinaryLike): number {
  const bytesA = a instanceof Uint8Array ? a : (a.buffer ?? new Uint8Array())
  const bytesB = b instanceof Uint8Array ? b : (b.buffer ?? new Uint8Array())
  if (bytesA.length !== bytesB.length) return bytesA.length < bytesB.length ? -1 : 1
  const subtypes = (a.sub_type ?? 0) - (b.sub_type ?? 0)
  if (subtypes !== 0) return subtypes < 0 ? -1 : 1
  for (let i = 0; i < bytesA.length; i++) {
    if (bytesA[i] !== bytesB[i]) return bytesA[i]! < bytesB[i]! ? -1 : 1
  }
  return 0
}

/** bson (v6.x and later) keeps an ObjectId as four 24-bit big-endian words: `i0`..`i3`. */
const WORDS = ['i0', 'i1', 'i2', 'i3'] as const

/** The order of the 12 bytes, i.e. of the hex strings, read from bson's words without making strings. */
function compareObjectIds(a: Record<string, unknown>, b: Record<string, unknown>): number {
  for (const word of WORDS) {
    const x = a[word]
    const y = b[word]
    if (typeof x !== 'number' || typeof y !== 'number') return compareStrings(String(a), String(b))
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

interface TimestampLike {
  t: number
  i: number
}

function compareTimestamps(a: TimestampLike, b: TimestampLike): number {
  return compareNumbers(a.t, b.t) || compareNumbers(a.i, b.i)
}

/** A RegExp or a BSONRegExp as [pattern, flags], compared in that order. */
function regexParts(value: unknown): [string, unknown][] {
  if (value instanceof RegExp) return [['p', value.source], ['f', value.flags]]
  const { pattern, options } = value as { pattern?: string, options?: string }
  return [['p', pattern ?? ''], ['f', options ?? '']]
}
