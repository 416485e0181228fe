import { Rank, rankOf } from '../bson/bson-order.js'
import { toValueKey } from '../bson/value-key.js'
import { type Document, isPlainObject } from '../document.js'

/**
 * The byte encoding of index keys: memcmp order of the bytes is MongoDB's order of BSON values
 * (bson-order.ts), so one sorted structure (an lmdb database with binary keys, or a sorted
 * array in memory) serves equality, ranges, prefixes and ordered walks.
 *
 * Why our own encoding rather than lmdb-js's ordered-binary arrays: ordered-binary orders JS
 * types its own way (it has no MongoDB type ranks, no ObjectId or Date order, no descending
 * fields), and the memory backend needs the same order without lmdb.
 *
 * Each value is a type byte (its rank in the BSON order) and a payload; every encoding is
 * prefix-free (self-delimiting), so components concatenate (compound indexes) and a
 * descending component is its bytes inverted (0xff - b), which reverses its order:
 * - number (int32, int64, double, decimal as a double): 8 bytes of the IEEE double, sign-flipped
 *   so negative < positive; -0 is 0, NaN sorts first. Long and Decimal128 beyond 2^53 collide
 *   with their nearest double; bounds are inclusive and the filter is re-run, so that only costs
 *   a candidate, never a match.
 * - string: UTF-8 (code point order, as the server compares without collation), 0x00 escaped as
 *   00 ff, ended by 00 00. Strings longer than MAX_STRING_BYTES are cut there and end with ff
 *   instead: every longer string with that prefix shares the key, again only extra candidates.
 * - Date: the double of its milliseconds; ObjectId: its 12 bytes; boolean: one byte;
 *   Binary: length, subtype, bytes; Timestamp: t and i on 4 bytes each; regex: two strings.
 * - embedded document / array: per field, its value's type byte, the name (documents only) and
 *   the value; ended by 00 (below any type byte: shorter first).
 * - missing and null share the null key; an empty array is `undefined` (just below null), as
 *   the server indexes them. An array value adds one entry per element (multikey).
 *
 * An index entry's key is the index key, then the document's `_id` encoded as above (ascending),
 * then its storage key (UTF-8, which never holds 0xff): entries are unique, and the entries of
 * one index key are in `_id` order, so a walk serves a sort with an `_id` tie-break (`{ age: 1,
 * _id: 1 }`, the router's) as MongoDB orders it. keyLength finds where the index key ends.
 */

export const MAX_STRING_BYTES = 256

const TYPE = {
  MinKey: 0x10,
  Undefined: 0x11,
  Null: 0x12,
  Number: 0x20,
  String: 0x30,
  Object: 0x40,
  Array: 0x50,
  Binary: 0x60,
  ObjectId: 0x70,
  Boolean: 0x80,
  Date: 0x90,
  Timestamp: 0xa0,
  RegExp: 0xb0,
  MaxKey: 0xc0,
} as const

/** Bytes past any key's continuation: an exclusive end after every entry starting with a prefix. */
export const END_PAD = new Uint8Array(12).fill(0xff)


/** The value an empty array indexes as. */
const EMPTY_ARRAY = Symbol('empty array')

class ByteWriter {
  bytes = new Uint8Array(64)
  length = 0

  push(byte: number): void {
    if (this.length === this.bytes.length) this.#grow(1)
    this.bytes[this.length++] = byte
  }

  pushAll(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.bytes.length) this.#grow(bytes.length)
    this.bytes.set(bytes, this.length)
    this.length += bytes.length
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.length)
  }

  #grow(by: number): void {
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + by))
    next.set(this.bytes.subarray(0, this.length))
    this.bytes = next
  }
}

const scratch = new DataView(new ArrayBuffer(8))
const encoder = new TextEncoder()

/** The key byte of each type rank of bson-order.ts: the same order, with room for `Undefined` (the empty array). */
const TYPE_BY_RANK: Record<number, number> = {
  [Rank.MinKey]: TYPE.MinKey,
  [Rank.Null]: TYPE.Null,
  [Rank.Number]: TYPE.Number,
  [Rank.String]: TYPE.String,
  [Rank.Object]: TYPE.Object,
  [Rank.Array]: TYPE.Array,
  [Rank.Binary]: TYPE.Binary,
  [Rank.ObjectId]: TYPE.ObjectId,
  [Rank.Boolean]: TYPE.Boolean,
  [Rank.Date]: TYPE.Date,
  [Rank.Timestamp]: TYPE.Timestamp,
  [Rank.RegExp]: TYPE.RegExp,
  [Rank.MaxKey]: TYPE.MaxKey,
}

/** The type byte of a value, i.e. its rank in the BSON order (bson-order.ts decides the rank). */
export function typeOf(value: unknown): number {
  if (value === EMPTY_ARRAY) return TYPE.Undefined
  return TYPE_BY_RANK[rankOf(value)]!
}

function writeDouble(out: ByteWriter, value: number): void {
  if (Number.isNaN(value)) {
    for (let i = 0; i < 8; i++) out.push(0)
    return
  }
  scratch.setFloat64(0, value === 0 ? 0 : value)
  const negative = (scratch.getUint8(0) & 0x80) !== 0
  for (let i = 0; i < 8; i++) {
    const byte = scratch.getUint8(i)
    out.push(negative ? 0xff - byte : i === 0 ? byte | 0x80 : byte)
  }
}

function writeString(out: ByteWriter, value: string, cut = true): void {
  let bytes = encoder.encode(value)
  const long = cut && bytes.length > MAX_STRING_BYTES
  if (long) bytes = bytes.subarray(0, MAX_STRING_BYTES)
  for (const byte of bytes) {
    out.push(byte)
    if (byte === 0) out.push(0xff)
  }
  if (long) out.push(0xff)
  else {
    out.push(0)
    out.push(0)
  }
}

function writeUint32(out: ByteWriter, value: number): void {
  scratch.setUint32(0, value >>> 0)
  for (let i = 0; i < 4; i++) out.push(scratch.getUint8(i))
}

function writeValue(out: ByteWriter, value: unknown): void {
  const type = typeOf(value)
  out.push(type)
  switch (type) {
    case TYPE.Number:
      writeDouble(out, typeof value === 'number' ? value : Number(value))
      return
    case TYPE.String:
      writeString(out, typeof value === 'string' ? value : String((value as { value?: unknown }).value ?? value))
      return
    case TYPE.Boolean:
      out.push(value ? 1 : 0)
      return
    case TYPE.Date:
      writeDouble(out, (value as Date).getTime())
      return
    case TYPE.ObjectId:
      out.pushAll((value as { id: Uint8Array }).id)
      return
    case TYPE.Binary: {
      const bytes = value instanceof Uint8Array ? value : ((value as { buffer?: Uint8Array }).buffer ?? new Uint8Array())
      const position = (value as { position?: number }).position
      const used = typeof position === 'number' ? bytes.subarray(0, position) : bytes
      writeUint32(out, used.length)
      out.push(value instanceof Uint8Array ? 0 : ((value as { sub_type?: number }).sub_type ?? 0))
      out.pushAll(used)
      return
    }
    case TYPE.Timestamp: {
      const { t, i } = value as { t: number, i: number }
      writeUint32(out, t)
      writeUint32(out, i)
      return
    }
    case TYPE.RegExp: {
      const [pattern, flags] = value instanceof RegExp ? [value.source, value.flags] : [(value as { pattern: string }).pattern, (value as { options: string }).options]
      writeString(out, pattern, false)
      writeString(out, flags, false)
      return
    }
    case TYPE.Object:
      for (const [name, field] of Object.entries(value as object)) {
        out.push(typeOf(field))
        writeString(out, name, false)
        writeValue(out, field)
      }
      out.push(0)
      return
    case TYPE.Array:
      for (const item of value as unknown[]) writeValue(out, item)
      out.push(0)
      return
  }
}

/** The key bytes of one value, inverted for a descending field. */
export function encodeValue(value: unknown, direction: 1 | -1 = 1): Uint8Array {
  const out = new ByteWriter()
  writeValue(out, value)
  const bytes = out.result()
  return direction === -1 ? invert(bytes) : bytes
}

/** The bytes of a string prefix: every string starting with `prefix` has a key starting with them. */
export function encodeStringPrefix(prefix: string): Uint8Array {
  const out = new ByteWriter()
  out.push(TYPE.String)
  writeString(out, prefix.slice(0, MAX_STRING_BYTES / 4), false)
  // Drop the terminator: a prefix, not a whole string.
  return out.result().subarray(0, out.length - 2)
}

/** An entry's key without its storage key: the index key followed by the document's `_id` (see above). */
export function entryPrefixOf(key: Uint8Array, id: unknown): Uint8Array {
  return concatBytes([key, encodeValue(id)])
}

/**
 * The length of the index key at the start of an entry's key, whose components have
 * `directions`: each encoding is self-delimiting, so this walks the components without decoding.
 */
export function keyLength(bytes: Uint8Array, directions: readonly (1 | -1)[]): number {
  let at = 0
  for (const direction of directions) at = skipValue(bytes, at, direction === -1 ? 0xff : 0)
  return at
}

/** Where the value encoded at `at` ends; `flip` is 0xff for a descending (inverted) component. */
function skipValue(bytes: Uint8Array, at: number, flip: number): number {
  const type = bytes[at++]! ^ flip
  switch (type) {
    case TYPE.Number:
    case TYPE.Date:
    case TYPE.Timestamp:
      return at + 8
    case TYPE.String:
      return skipString(bytes, at, flip)
    case TYPE.Boolean:
      return at + 1
    case TYPE.ObjectId:
      return at + 12
    case TYPE.Binary: {
      const length = (((bytes[at]! ^ flip) << 24) | ((bytes[at + 1]! ^ flip) << 16) | ((bytes[at + 2]! ^ flip) << 8) | (bytes[at + 3]! ^ flip)) >>> 0
      return at + 5 + length
    }
    case TYPE.RegExp:
      return skipString(bytes, skipString(bytes, at, flip), flip)
    case TYPE.Object:
      // Per field: its type byte, its name, then the value (which repeats the type byte).
      while ((bytes[at]! ^ flip) !== 0) at = skipValue(bytes, skipString(bytes, at + 1, flip), flip)
      return at + 1
    case TYPE.Array:
      while ((bytes[at]! ^ flip) !== 0) at = skipValue(bytes, at, flip)
      return at + 1
    default:
      // MinKey, Undefined, Null, MaxKey: the type byte alone.
      return at
  }
}

/** Past a string of writeString: 00 00 ends it, 00 ff is an escaped 0, a lone ff ends a cut one. */
function skipString(bytes: Uint8Array, at: number, flip: number): number {
  for (;;) {
    const byte = bytes[at]! ^ flip
    if (byte === 0) {
      if ((bytes[at + 1]! ^ flip) === 0) return at + 2
      at += 2
    } else if (byte === 0xff) return at + 1
    else at++
  }
}

export function invert(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length)
  for (let i = 0; i < bytes.length; i++) out[i] = 0xff - bytes[i]!
  return out
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** One index key of a document: its bytes, a canonical string (for exact equality) and its values. */
export interface IndexKey {
  bytes: Uint8Array
  canonical: string
  keyValue: Record<string, unknown>
}

/**
 * An index key whose canonical string and values are made when asked for: a write compares keys by
 * their bytes, and only unique indexes and error messages read the rest.
 */
class DocumentIndexKey implements IndexKey {
  readonly bytes: Uint8Array
  readonly #fields: readonly (readonly [string, 1 | -1])[]
  readonly #values: readonly unknown[]
  #canonical: string | undefined

  constructor(bytes: Uint8Array, fields: readonly (readonly [string, 1 | -1])[], values: readonly unknown[]) {
    this.bytes = bytes
    this.#fields = fields
    this.#values = values
  }

  get canonical(): string {
    this.#canonical ??= this.#values.map((value) => `${JSON.stringify(value === EMPTY_ARRAY ? 'u' : toValueKey(value))},`).join('')
    return this.#canonical
  }

  get keyValue(): Record<string, unknown> {
    const keyValue: Record<string, unknown> = {}
    this.#fields.forEach(([field], i) => {
      const value = this.#values[i]
      keyValue[field] = value === EMPTY_ARRAY ? [] : value
    })
    return keyValue
  }
}

/**
 * The keys a document has in an index over `fields` (with their directions): one per element of
 * an array field (multikey), every combination for several array fields; missing is null.
 */
export function indexKeysOf(doc: Document, fields: readonly (readonly [string, 1 | -1])[]): { keys: IndexKey[], multikey: boolean } {
  let combos: { parts: Uint8Array[], values: unknown[] }[] = [{ parts: [], values: [] }]
  let multikey = false
  for (const [field, direction] of fields) {
    const found = valuesAt(doc, field.split('.'))
    if (found.multikey) multikey = true
    combos = combos.flatMap((combo) => found.values.map((value) => ({ parts: [...combo.parts, encodeValue(value, direction)], values: [...combo.values, value] })))
  }
  return { keys: combos.map(({ parts, values }) => new DocumentIndexKey(parts.length === 1 ? parts[0]! : concatBytes(parts), fields, values)), multikey }
}

/** The distinct values a dotted path reaches, expanding arrays; [null] when it reaches none. */
function valuesAt(doc: Document, path: string[]): { values: unknown[], multikey: boolean } {
  const out: unknown[] = []
  const state = { multikey: false }
  collect(doc, path, 0, out, state)
  if (out.length === 0) return { values: [null], multikey: state.multikey }
  if (out.length === 1) return { values: out, multikey: state.multikey }
  const seen = new Set<string>()
  const values = out.filter((value) => {
    const key = value === EMPTY_ARRAY ? 'u' : toValueKey(value)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { values, multikey: state.multikey }
}

function collect(value: unknown, path: string[], depth: number, out: unknown[], state: { multikey: boolean }): void {
  if (depth === path.length) {
    if (!Array.isArray(value)) out.push(value ?? null)
    else {
      state.multikey = true
      if (value.length === 0) out.push(EMPTY_ARRAY)
      else out.push(...value)
    }
    return
  }
  if (Array.isArray(value)) {
    state.multikey = true
    for (const item of value) collect(item, path, depth, out, state)
    return
  }
  if (isPlainObject(value)) {
    collect(value[path[depth]!], path, depth + 1, out, state)
  }
}
