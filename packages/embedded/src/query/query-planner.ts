import { toValueKey } from '../bson/value-key.js'
import { type Document, isPlainObject } from '../document.js'
import { ID_INDEX, type LiveIndex } from '../indexes/index-catalog.js'
import { concatBytes, END_PAD, encodeStringPrefix, encodeValue, invert, keyLength, MAX_STRING_BYTES, typeOf } from '../indexes/index-keys.js'
import { exactDouble } from '../numbers/numeric-key.js'
import { isNumericObject } from '../numbers/numeric-type.js'
import type { SortSpec } from '../sort/sort-documents.js'
import type { CollectionStorage, IndexRange } from '../storage/storage.js'
import { isExactScalar } from './simple-filter.js'

/** What a read tells the planner besides its filter. */
export interface PlanOptions {
  sort?: SortSpec | undefined
  /** Any collation but the simple one: string order and equality are not the index's, so no index is used. */
  collation?: unknown
}

/** The candidates of a read: storage keys, each once; `sorted` when they come in the read's sort order. */
export interface Plan {
  index: string
  keys: Iterable<string>
  sorted: boolean
}

type FieldBounds =
  | { kind: 'points', values: unknown[] }
  | { kind: 'range', low?: unknown, high?: unknown, lowExclusive: boolean, highExclusive: boolean, type: number }
  | { kind: 'prefix', prefix: string }

/**
 * Picks an index for a read, or none (undefined: the caller scans). The filter's conditions are
 * its top-level fields and those of a top-level `$and`; a field pinned to values (`v`, `$eq`,
 * `$in`) gives point bounds, `$gt`/`$gte`/`$lt`/`$lte` a range within the value's type (type
 * bracketing), a regex `/^abc/` without flags a prefix. An index is usable when its first field
 * has bounds; following fields add bounds while the previous ones are points. The caller runs
 * the whole filter on every candidate, so bounds only need to hold every match (a bound is made
 * inclusive wherever a key may stand for several values: long strings).
 *
 * With a sort the index's order serves, the index is walked in order (backwards for reversed)
 * and the candidates come sorted, so a sorted page stops after its limit: the sort's fields are
 * the index's fields from some position on, all in its directions or all reversed, the fields
 * before that position pinned to one value each by the filter (index `{ status: 1, age: 1 }`,
 * filter `{ status: 'a' }`, sort `{ age: 1 }`). A trailing `_id` (the router's tie-break,
 * `{ age: -1, _id: 1 }`) is served when the sort covers the index's remaining fields: entries of
 * one key are in `_id` order (index-keys.ts), and each run of equal keys is walked the other way
 * when the `_id` direction is not the walk's. Not for a multikey index (an array sorts by its
 * smallest or largest element, which a bounded walk may not meet first). An index with equality
 * bounds is preferred to one that only sorts, one that does both to either.
 *
 * Refused to the planner (scan): non-simple collations, null (matches missing too, and arrays
 * through their elements), arrays and embedded documents as values, regexes with flags or
 * without a literal prefix, `$or`/`$nor`/`$not`/`$elemMatch`, paths with numeric segments.
 * Known differences with the scan they replace, on values the planner never sees in practice:
 * NaN (mingo orders it equal to every number; the index below all), strings compared across
 * the surrogate range (mingo compares UTF-16 units, the index code points, as the server), and
 * ties of a served sort between numbers that share a key (longs and decimals past 2^53).
 */
export function planQuery(filter: Document, indexes: readonly LiveIndex[], storage: CollectionStorage, options: PlanOptions = {}): Plan | undefined {
  if (indexes.length === 0 || !isSimpleCollation(options.collation)) return undefined
  const conditions = new Map<string, FieldBounds>()
  collectBounds(filter, conditions)
  let best: { index: LiveIndex, ranges: IndexRange[], score: number, order: SortWalk | undefined } | undefined
  for (const index of indexes) {
    if (index.fields.some(([field]) => !isPlannablePath(field))) continue
    const built = rangesOf(index, conditions)
    const order = options.sort ? sortWalk(index, options.sort, conditions) : undefined
    if (!built && !order) continue
    const score = (built?.score ?? 0) + (order ? SORT_SCORE : 0)
    if (!best || score > best.score) best = { index, ranges: built?.ranges ?? [{}], score, order }
  }
  if (!best) return undefined
  const { index, ranges, order } = best
  return { index: index.name, keys: walk(storage, index, ranges, order), sorted: order !== undefined }
}

/** Storage keys of ObjectId `_id`s (value-key.ts): 'o' and 24 lowercase hex digits, so in ObjectId order. */
const OBJECT_ID_KEYS = { start: 'o', end: 'p' }

/**
 * Serves a sort on `_id` alone, or a range of ObjectId `_id`s, from the order of the storage keys
 * themselves (the `_id_` index): when every key of the collection is an ObjectId's (none outside
 * ['o', 'p'), two cursor steps to check at each read), the keys walked in order are the `_id`s in
 * order, so a page sorted by `_id` (or continuing after one, a page cursor) reads its own documents
 * only. Keys of other `_id` types do not sort as BSON does: such a collection scans. Backends
 * without ordered keys (memory) scan too.
 */
export function planIdOrder(filter: Document, storage: CollectionStorage, options: PlanOptions = {}): Plan | undefined {
  if (!storage.keyRange || !isSimpleCollation(options.collation)) return undefined
  const sort = options.sort ? Object.entries(options.sort) : []
  if (sort.length > 1 || (sort.length === 1 && (sort[0]![0] !== '_id' || (sort[0]![1] !== 1 && sort[0]![1] !== -1)))) return undefined
  const conditions = new Map<string, FieldBounds>()
  collectBounds(filter, conditions)
  const bounds = conditions.get('_id')
  const range = bounds?.kind === 'range' ? bounds : undefined
  if (range && [range.low, range.high].some((value) => value !== undefined && !toValueKey(value).startsWith(OBJECT_ID_KEYS.start))) return undefined
  if (!range && sort.length === 0) return undefined
  const outside = [storage.keyRange({ end: OBJECT_ID_KEYS.start }), storage.keyRange({ start: OBJECT_ID_KEYS.end })]
  if (outside.some((keys) => !keys.next().done)) return undefined
  // Bounds are inclusive: the caller runs the whole filter on each document anyway.
  const start = range?.low === undefined ? OBJECT_ID_KEYS.start : toValueKey(range.low)
  const end = range?.high === undefined ? OBJECT_ID_KEYS.end : `${toValueKey(range.high)}\u0000`
  return { index: ID_INDEX, keys: storage.keyRange({ start, end, reverse: sort[0]?.[1] === -1 }), sorted: sort.length === 1 }
}

/** Any collation but absent, null or `{ locale: 'simple' }` compares strings its own way. */
export function isSimpleCollation(collation: unknown): boolean {
  if (collation === undefined || collation === null) return true
  return typeof collation === 'object' && (collation as { locale?: unknown }).locale === 'simple'
}

const EQUALITY_SCORE = 10
/** Serving the sort: worth more than a range alone, less than an equality (which leaves few to sort). */
const SORT_SCORE = 6
/** Past this many point combinations a compound plan keeps fewer fields. */
const MAX_RANGES = 256

/** The byte ranges of `index` the filter's bounds allow, or undefined when its first field has none. */
function rangesOf(index: LiveIndex, conditions: Map<string, FieldBounds>): { ranges: IndexRange[], score: number } | undefined {
  let prefixes: Uint8Array[][] = [[]]
  let score = 0
  for (const [field, direction] of index.fields) {
    const bounds = conditions.get(field)
    if (!bounds) break
    if (bounds.kind === 'points') {
      if (prefixes.length * bounds.values.length > MAX_RANGES) break
      const parts = unique(bounds.values.map((value) => encodeValue(value, direction)))
      prefixes = prefixes.flatMap((prefix) => parts.map((part) => [...prefix, part]))
      score += EQUALITY_SCORE
      continue
    }
    const [low, high] = componentBounds(bounds, direction, index.multikey)
    score += 5
    const ranges = prefixes.map((prefix) => ({ start: concatBytes([...prefix, low]), end: concatBytes([...prefix, high]) }))
    return { ranges: sortRanges(ranges), score }
  }
  if (score === 0) return undefined
  if (index.unique && score === EQUALITY_SCORE * index.fields.length) score += 100
  return { ranges: sortRanges(prefixes.map((parts) => ({ start: concatBytes(parts), end: concatBytes([...parts, END_PAD]) }))), score }
}

/**
 * A range or prefix field's start and end bytes, for its direction: a key and its entries (the
 * key followed by a storage key) are all below the key followed by END_PAD, so appending it
 * includes a bound and leaving it out excludes it; a type byte alone bounds the whole type.
 */
function componentBounds(bounds: Exclude<FieldBounds, { kind: 'points' }>, direction: 1 | -1, multikey: boolean): [Uint8Array, Uint8Array] {
  if (bounds.kind === 'prefix') {
    const prefix = encodeStringPrefix(bounds.prefix)
    const bytes = direction === -1 ? invert(prefix) : prefix
    return [bytes, concatBytes([bytes, END_PAD])]
  }
  let { high } = bounds
  // On a multikey index `{ $gt: 5, $lt: 9 }` holds for [1, 10]: two elements, no one in (5, 9).
  if (multikey && bounds.low !== undefined && high !== undefined) high = undefined
  const typeOnly = new Uint8Array([bounds.type])
  const low = bounds.low === undefined ? { bytes: typeOnly, exclusive: false } : { bytes: encodeValue(bounds.low), exclusive: bounds.lowExclusive }
  const top = high === undefined ? { bytes: typeOnly, exclusive: false } : { bytes: encodeValue(high), exclusive: bounds.highExclusive }
  if (direction === 1) return [low.exclusive ? concatBytes([low.bytes, END_PAD]) : low.bytes, top.exclusive ? top.bytes : concatBytes([top.bytes, END_PAD])]
  const start = invert(top.bytes)
  const end = invert(low.bytes)
  return [top.exclusive ? concatBytes([start, END_PAD]) : start, low.exclusive ? end : concatBytes([end, END_PAD])]
}

/** How a walk serves a sort: backwards or not, and whether each run of equal keys is walked the other way (its `_id` order). */
interface SortWalk {
  reverse: boolean
  flipRuns: boolean
}

/** How `index` serves `sort` under the filter's bounds (see planQuery), or undefined when it does not. */
function sortWalk(index: LiveIndex, sort: SortSpec, conditions: Map<string, FieldBounds>): SortWalk | undefined {
  let entries = Object.entries(sort)
  if (index.multikey || entries.length === 0 || !entries.every(([field]) => isPlannablePath(field))) return undefined
  const fields = index.fields
  // Leading fields pinned to one value: the walk stays within one value of each.
  let pinned = 0
  while (pinned < fields.length && isSinglePoint(conditions.get(fields[pinned]![0]))) pinned++
  let idDirection: 1 | -1 | undefined
  const [lastField, lastDirection] = entries[entries.length - 1]!
  if (lastField === '_id' && !fields.some(([field]) => field === '_id')) {
    idDirection = lastDirection === -1 ? -1 : 1
    entries = entries.slice(0, -1)
  }
  for (let from = 0; from <= pinned; from++) {
    const direction = matchFrom(fields, from, entries)
    if (direction === undefined) continue
    if (idDirection === undefined) {
      if (entries.length === 0) continue
      return { reverse: direction === -1, flipRuns: false }
    }
    // Entries of one key are in `_id` order only past every field of the index.
    if (from + entries.length !== fields.length) continue
    if (entries.length === 0) return { reverse: idDirection === -1, flipRuns: false }
    return { reverse: direction === -1, flipRuns: idDirection !== direction }
  }
  return undefined
}

/** 1 when `entries` are `fields` from `from` on in their directions, -1 all reversed, else undefined (0 entries: 1). */
function matchFrom(fields: readonly [string, 1 | -1][], from: number, entries: [string, 1 | -1][]): 1 | -1 | undefined {
  if (from + entries.length > fields.length) return undefined
  let direction: 1 | -1 | undefined
  for (let i = 0; i < entries.length; i++) {
    const [field, dir] = entries[i]!
    const [indexField, indexDir] = fields[from + i]!
    if (field !== indexField) return undefined
    const here = dir === indexDir ? 1 : -1
    if (direction !== undefined && here !== direction) return undefined
    direction = here
  }
  return direction ?? 1
}

/** A field pinned to one value (its key: values equal as keys, 1 and 1.0, count once). */
function isSinglePoint(bounds: FieldBounds | undefined): boolean {
  return bounds?.kind === 'points' && unique(bounds.values.map((value) => encodeValue(value))).length === 1
}

/** Past this many entries of one key, a run walked the other way is read again rather than held. */
const RUN_BUFFER = 256

/**
 * The storage keys of the entries in `ranges` (ascending, or all reversed). A multikey index
 * holds several entries per document: those are yielded once (remembering what was yielded, so
 * only there does a walk's memory grow with its length). With `flipRuns`, each run of entries of
 * one index key is yielded in the other direction: held when short, walked again when long.
 */
function* walk(storage: CollectionStorage, index: LiveIndex, ranges: IndexRange[], order: SortWalk | undefined): Generator<string, undefined> {
  const reverse = order?.reverse === true
  const seen = index.multikey ? new Set<string>() : undefined
  const ordered = reverse ? [...ranges].reverse() : ranges
  for (const range of ordered) {
    const docKeys = order?.flipRuns ? flippedRuns(storage, index, range, reverse) : straight(storage, index.name, { ...range, reverse })
    for (const docKey of docKeys) {
      if (seen) {
        if (seen.has(docKey)) continue
        seen.add(docKey)
      }
      yield docKey
    }
  }
  return undefined
}

function* straight(storage: CollectionStorage, index: string, range: IndexRange): Generator<string, undefined> {
  const entries = storage.indexRange(index, range)
  try {
    for (let next = entries.next(); !next.done; next = entries.next()) yield next.value[1]
  } finally {
    entries.return?.()
  }
  return undefined
}

/**
 * The range walked in `reverse` (or not), each run of one index key in the other direction. A
 * short run is held and yielded backwards; past RUN_BUFFER entries the walk stops, reads the
 * run again the other way, and resumes past it, so memory stays bounded however long a run is.
 */
function* flippedRuns(storage: CollectionStorage, index: LiveIndex, range: IndexRange, reverse: boolean): Generator<string, undefined> {
  const directions = index.fields.map(([, direction]) => direction)
  let { start, end } = range
  for (;;) {
    const entries = storage.indexRange(index.name, { start, end, reverse })
    let runKey: Uint8Array | undefined
    let run: string[] = []
    let long = false
    try {
      for (let next = entries.next(); !next.done; next = entries.next()) {
        const [entryKey, docKey] = next.value
        const length = keyLength(entryKey, directions)
        if (runKey && length === runKey.length && Buffer.compare(entryKey.subarray(0, length), runKey) === 0) {
          run.push(docKey)
          if (run.length > RUN_BUFFER) {
            long = true
            break
          }
          continue
        }
        for (let i = run.length - 1; i >= 0; i--) yield run[i]!
        runKey = entryKey.slice(0, length)
        run = [docKey]
      }
    } finally {
      entries.return?.()
    }
    if (!long) {
      for (let i = run.length - 1; i >= 0; i--) yield run[i]!
      return undefined
    }
    // The whole run, the other way, then the rest of the range past it.
    const key = runKey!
    yield* straight(storage, index.name, { start: key, end: concatBytes([key, END_PAD]), reverse: !reverse })
    if (reverse) end = key
    else start = concatBytes([key, END_PAD])
  }
}

function sortRanges(ranges: IndexRange[]): IndexRange[] {
  return ranges.sort((a, b) => Buffer.compare(a.start ?? new Uint8Array(), b.start ?? new Uint8Array()))
}

function unique(parts: Uint8Array[]): Uint8Array[] {
  const seen = new Set<string>()
  return parts.filter((part) => {
    const key = Buffer.from(part).toString('latin1')
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function collectBounds(filter: Document, out: Map<string, FieldBounds>): void {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(condition)) {
      for (const part of condition) if (isPlainObject(part)) collectBounds(part, out)
      continue
    }
    if (key.startsWith('$')) continue
    const bounds = boundsOf(condition)
    if (!bounds) continue
    const known = out.get(key)
    // Points are the narrowest; otherwise the first condition found serves.
    if (!known || (bounds.kind === 'points' && known.kind !== 'points')) out.set(key, bounds)
  }
}

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte'])

function boundsOf(condition: unknown): FieldBounds | undefined {
  if (isPointValue(condition)) return { kind: 'points', values: [condition] }
  const prefix = regexPrefix(condition)
  if (prefix !== undefined) return { kind: 'prefix', prefix }
  if (!isPlainObject(condition)) return undefined
  const operators = Object.keys(condition)
  if (operators.length === 0 || !operators.every((op) => op.startsWith('$'))) return undefined
  if (Object.hasOwn(condition, '$eq') && isPointValue(condition['$eq'])) return { kind: 'points', values: [condition['$eq']] }
  const list = condition['$in']
  if (Array.isArray(list) && list.every(isPointValue)) return { kind: 'points', values: list }
  if (Object.hasOwn(condition, '$regex')) {
    const options = condition['$options'] ?? ''
    const regex = condition['$regex']
    const pattern = regex instanceof RegExp ? regex : typeof regex === 'string' && typeof options === 'string' ? { source: regex, flags: options } : undefined
    const found = pattern && (!(regex instanceof RegExp) || options === '') ? regexPrefix(pattern) : undefined
    if (found !== undefined) return { kind: 'prefix', prefix: found }
  }
  let low: unknown
  let high: unknown
  let lowExclusive = false
  let highExclusive = false
  for (const op of operators) {
    if (!RANGE_OPERATORS.has(op)) continue
    const value = condition[op]
    if (!isPointValue(value)) continue
    if ((op === '$gt' || op === '$gte') && low === undefined) {
      low = value
      lowExclusive = op === '$gt' && isExactKey(value)
    } else if ((op === '$lt' || op === '$lte') && high === undefined) {
      high = value
      highExclusive = op === '$lt' && isExactKey(value)
    }
  }
  if (low !== undefined && high !== undefined && typeOf(low) !== typeOf(high)) high = undefined
  const bound = low ?? high
  if (bound === undefined) return undefined
  return { kind: 'range', low, high, lowExclusive, highExclusive, type: typeOf(bound) }
}

/** A value whose key is its own (not shared with other values): a bound on it may be exclusive. */
function isExactKey(value: unknown): boolean {
  // A Long beyond 2^53 or a decimal such as 0.1 shares the key of the nearest double.
  if (isNumericObject(value)) return exactDouble(value) !== undefined
  return typeof value !== 'string' || Buffer.byteLength(value) <= MAX_STRING_BYTES
}

/** A value an index key holds as it is: an exact scalar, or a number of any BSON type (keyed as a double: index-keys.ts). */
function isPointValue(value: unknown): boolean {
  return isExactScalar(value) || isNumericObject(value)
}

/** The literal prefix of an anchored regex without flags (`/^abc/`, `/^abc.*x/`), if any. */
function regexPrefix(value: unknown): string | undefined {
  let source: string
  let flags: string
  if (value instanceof RegExp) [source, flags] = [value.source, value.flags]
  else if (isPlainObject(value) && typeof value['source'] === 'string' && typeof value['flags'] === 'string' && Object.keys(value).length === 2) {
    ;[source, flags] = [value['source'], value['flags']]
  } else if ((value as { _bsontype?: unknown } | null)?._bsontype === 'BSONRegExp') {
    const regex = value as { pattern: string, options: string }
    ;[source, flags] = [regex.pattern, regex.options]
  } else return undefined
  if (flags !== '' || !source.startsWith('^')) return undefined
  let prefix = ''
  for (let i = 1; i < source.length; i++) {
    const char = source[i]!
    if ('\\^$.|?*+()[]{}'.includes(char)) {
      // A quantifier applies to the last literal, which is then optional.
      if ('?*{'.includes(char)) prefix = prefix.slice(0, -1)
      break
    }
    prefix += char
  }
  return prefix === '' ? undefined : prefix
}

/** Index paths whose meaning the planner shares with the matcher: no empty or numeric segments. */
function isPlannablePath(path: string): boolean {
  return path.split('.').every((segment) => segment !== '' && !/^\d+$/.test(segment))
}
