import type { Document } from './document.js'
import type { LiveIndex } from './index-catalog.js'
import { concatBytes, END_PAD, encodeStringPrefix, encodeValue, invert, MAX_STRING_BYTES, typeOf } from './index-keys.js'
import type { CollectionStorage, IndexRange } from './persist/storage.js'
import { isExactScalar } from './simple-filter.js'
import type { SortSpec } from './sort-documents.js'

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
 * With a sort whose fields are an index's leading fields, all in its directions or all reversed,
 * the index is walked in order (backwards for reversed) and the candidates come sorted, so a
 * sorted page stops after its limit. Not for a multikey index (an array sorts by its smallest or
 * largest element, which a bounded walk may not meet first). An index with equality bounds is
 * preferred to one that only sorts.
 *
 * Refused to the planner (scan): non-simple collations, null (matches missing too, and arrays
 * through their elements), arrays and embedded documents as values, regexes with flags or
 * without a literal prefix, `$or`/`$nor`/`$not`/`$elemMatch`, paths with numeric segments.
 * Known differences with the scan they replace, on values the planner never sees in practice:
 * NaN (mingo orders it equal to every number; the index below all) and strings compared across
 * the surrogate range (mingo compares UTF-16 units, the index code points, as the server).
 */
export function planQuery(filter: Document, indexes: readonly LiveIndex[], storage: CollectionStorage, options: PlanOptions = {}): Plan | undefined {
  if (indexes.length === 0 || !isSimpleCollation(options.collation)) return undefined
  const conditions = new Map<string, FieldBounds>()
  collectBounds(filter, conditions)
  let best: { index: LiveIndex, ranges: IndexRange[], score: number } | undefined
  for (const index of indexes) {
    if (index.fields.some(([field]) => !isPlannablePath(field))) continue
    const built = rangesOf(index, conditions)
    if (built && (!best || built.score > best.score)) best = { index, ...built }
  }
  const sorting = options.sort ? indexes.find((index) => sortDirection(index, options.sort!) !== 0) : undefined
  if (sorting && (!best || (best.score < EQUALITY_SCORE && best.index !== sorting))) {
    const reverse = sortDirection(sorting, options.sort!) === -1
    const ranges = rangesOf(sorting, conditions)?.ranges ?? [{}]
    return { index: sorting.name, keys: walk(storage, sorting.name, ranges, reverse), sorted: true }
  }
  if (!best) return undefined
  const direction = options.sort ? sortDirection(best.index, options.sort) : 0
  return { index: best.index.name, keys: walk(storage, best.index.name, best.ranges, direction === -1), sorted: direction !== 0 }
}

/** Any collation but absent, null or `{ locale: 'simple' }` compares strings its own way. */
export function isSimpleCollation(collation: unknown): boolean {
  if (collation === undefined || collation === null) return true
  return typeof collation === 'object' && (collation as { locale?: unknown }).locale === 'simple'
}

const EQUALITY_SCORE = 10
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

/** Whether `sort` is walked by `index`: 1 forwards, -1 backwards, 0 not at all. */
function sortDirection(index: LiveIndex, sort: SortSpec): 1 | -1 | 0 {
  const entries = Object.entries(sort)
  if (index.multikey || entries.length === 0 || entries.length > index.fields.length) return 0
  let direction: 1 | -1 | 0 = 0
  for (let i = 0; i < entries.length; i++) {
    const [field, dir] = entries[i]!
    const [indexField, indexDir] = index.fields[i]!
    if (field !== indexField || !isPlannablePath(field)) return 0
    const here = dir === indexDir ? 1 : -1
    if (direction !== 0 && here !== direction) return 0
    direction = here
  }
  return direction
}

/** The storage keys of the entries in `ranges` (ascending, or all reversed), each document once. */
function* walk(storage: CollectionStorage, index: string, ranges: IndexRange[], reverse: boolean): Generator<string, undefined> {
  const seen = new Set<string>()
  const ordered = reverse ? [...ranges].reverse() : ranges
  for (const range of ordered) {
    const entries = storage.indexRange(index, { ...range, reverse })
    try {
      for (let next = entries.next(); !next.done; next = entries.next()) {
        if (seen.has(next.value)) continue
        seen.add(next.value)
        yield next.value
      }
    } finally {
      entries.return?.()
    }
  }
  return undefined
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
  if (isExactScalar(condition)) return { kind: 'points', values: [condition] }
  const prefix = regexPrefix(condition)
  if (prefix !== undefined) return { kind: 'prefix', prefix }
  if (!isPlainObject(condition)) return undefined
  const operators = Object.keys(condition)
  if (operators.length === 0 || !operators.every((op) => op.startsWith('$'))) return undefined
  if (Object.hasOwn(condition, '$eq') && isExactScalar(condition['$eq'])) return { kind: 'points', values: [condition['$eq']] }
  const list = condition['$in']
  if (Array.isArray(list) && list.every(isExactScalar)) return { kind: 'points', values: list }
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
    if (!isExactScalar(value)) continue
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
  return typeof value !== 'string' || Buffer.byteLength(value) <= MAX_STRING_BYTES
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}
