import { compareBson } from '../bson/bson-order.js'
import { checkFieldPath } from '../check-field-path.js'
import { type Document, isPlainObject } from '../document.js'
import type { Deadline } from '../read/deadline.js'
import { type Pause, runUnpaced } from '../read/pause.js'
import { pacedSort } from './paced-sort.js'
import type { SortMemoryLimit } from './sort-memory-limit.js'

export type SortSpec = Record<string, 1 | -1>

/** An empty array sorts below null and missing, in both directions (server semantics). */
const EMPTY_ARRAY = Object.freeze({ _bsontype: 'MinKey' })

export type ValueOrder = (a: unknown, b: unknown) => number

interface Entry<T> {
  keys: unknown[]
  value: T
  size: number
}

interface SortedCollectorOptions {
  /** The memory the collector may hold (sort-memory-limit.ts), charged as it keeps documents; unlimited when absent. */
  memory?: SortMemoryLimit | undefined
  /** Compares two values: BSON order (the default), or BSON order with a collation's strings (collation.ts). */
  order?: ValueOrder | undefined
}

/**
 * Collects documents and returns them in `sort` order. With a `keep` bound (skip + limit) it
 * holds at most 2 × keep documents: whenever the buffer fills it is sorted and cut back to
 * `keep`, so a top-k over a large scan stays small. After a cut, a document that sorts no
 * earlier than the last one kept can never make the top `keep` (ties keep scan order), so it
 * is dropped on arrival. The sort is stable, so ties keep scan order, as they do in the buffer.
 *
 * A read sorts with `cut` and `sorted`, which pause between slices of work (paced-sort.ts) so that a
 * large sort does not hold the event loop; `add` and `result` sort in one stretch (a write's sort).
 */
export class SortedCollector<T = Document> {
  readonly #fields: [string[], 1 | -1][]
  readonly #keep: number
  readonly #memory: SortMemoryLimit | undefined
  readonly #order: ValueOrder
  #entries: Entry<T>[] = []
  /** The last entry kept by the latest cut, once the buffer has been cut to `keep`. */
  #cutoff: Entry<T> | undefined

  constructor(sort: SortSpec, keep = Number.POSITIVE_INFINITY, options: SortedCollectorOptions = {}) {
    this.#fields = Object.entries(sort).map(([path, dir]) => {
      checkFieldPath(path)
      return [path.split('.'), dir === -1 ? -1 : 1]
    })
    this.#keep = keep
    this.#memory = options.memory
    this.#order = options.order ?? compareBson
  }

  /**
   * Adds one document, sorted by the fields of `doc`, which needs to hold only the first segment
   * of each sort path (bson-field-reader.ts), and cuts the buffer at once when it is full.
   */
  add(doc: Document): void {
    if (this.offer(doc, () => doc as T, () => 0)) runUnpaced(this.cut())
  }

  /**
   * Offers one document, with the value and its size made only if the document may make the cut:
   * most documents of a top-k over a large scan are dropped on arrival, before anything is copied or
   * measured for them. What the result hands back is `value` (e.g. the document's BSON bytes, to
   * decode only if it makes the cut); `size` is what it holds in memory (its BSON size), charged to
   * the memory limit with what the entry itself holds (`entryBytes`).
   * True when the buffer is full: the caller then cuts it (`cut`) before offering more.
   */
  offer(doc: Document, value: () => T, size: () => number): boolean {
    const keys = this.#keysOf(doc)
    if (this.#cutoff !== undefined && this.#compareKeys(keys, this.#cutoff.keys) >= 0) return false
    const entry = { keys, value: value(), size: this.#memory ? size() + entryBytes(keys) : 0 }
    this.#entries.push(entry)
    this.#memory?.charge(entry.size)
    return this.#entries.length >= 2 * this.#keep
  }

  /**
   * Whether `doc` could still make the cut now (`offer` would keep it): a scan need not copy a
   * document that cannot. The cut only tightens, so a document refused now never makes it.
   */
  competes(doc: Document): boolean {
    if (this.#cutoff === undefined) return true
    return this.#compareKeys(this.#keysOf(doc), this.#cutoff.keys) < 0
  }

  /** Sorts the buffer and cuts it back to `keep`, pausing between slices of the sort (`deadline` given). */
  *cut(deadline?: Deadline): Generator<Pause, void> {
    const compare = (a: Entry<T>, b: Entry<T>) => this.#compareKeys(a.keys, b.keys)
    this.#entries = deadline === undefined ? this.#entries.sort(compare) : yield* pacedSort(this.#entries, compare, deadline)
    if (this.#entries.length >= this.#keep) {
      this.#entries.length = this.#keep
      this.#cutoff = this.#entries[this.#keep - 1]
      if (this.#memory) this.#memory.reset(this.#entries.reduce((sum, entry) => sum + entry.size, 0))
    }
  }

  /** The values kept, in sort order, with the size each was charged: sorted in slices, pausing between them. */
  *sorted(deadline: Deadline): Generator<Pause, Array<{ readonly value: T, readonly size: number } | undefined>> {
    yield* this.cut(deadline)
    const sorted = this.#entries
    this.#entries = []
    return sorted
  }

  /** The values kept, in sort order, sorted in one stretch. */
  result(): T[] {
    runUnpaced(this.cut())
    return this.#entries.map((entry) => entry.value)
  }

  #keysOf(doc: Document): unknown[] {
    return this.#fields.map(([path, dir]) => sortKeyOf(doc, path, dir, this.#order))
  }

  #compareKeys(a: unknown[], b: unknown[]): number {
    for (let i = 0; i < this.#fields.length; i++) {
      const order = this.#order(a[i], b[i])
      if (order !== 0) return order * this.#fields[i]![1]
    }
    return 0
  }
}

/** What one entry of a sort holds besides its document: the entry, the array of its keys, the handle of its bytes. */
const ENTRY_BYTES = 100
/** What a key value holds in memory, by kind (measured on Node 20: an ObjectId and its 12-byte buffer take about 100). */
const OBJECT_KEY_BYTES = 100

/**
 * The memory an entry of a sort holds besides its document's bytes: its bookkeeping and its sort
 * keys (a string its characters; an ObjectId or any other object about 100 bytes; a number nothing
 * of its own). Counted with the document's BSON size, so that what sorts count is close to what they hold.
 */
function entryBytes(keys: unknown[]): number {
  let bytes = ENTRY_BYTES
  for (const key of keys) {
    if (typeof key === 'string') bytes += 16 + key.length
    else if (typeof key === 'object' && key !== null) bytes += OBJECT_KEY_BYTES
  }
  return bytes
}

/**
 * The value a document sorts by on one field. When the path reaches arrays, the server uses
 * the smallest element for an ascending sort and the largest for a descending one.
 */
function sortKeyOf(doc: Document, path: string[], dir: 1 | -1, order: ValueOrder = compareBson): unknown {
  // The common case, a top-level field holding no array, without gathering candidates (a sort calls this per document).
  if (path.length === 1) {
    const value = doc[path[0]!]
    if (!Array.isArray(value)) return value ?? null
  }
  const candidates: unknown[] = []
  collect(doc, path, 0, candidates)
  let best: unknown = candidates.length === 0 ? null : candidates[0]
  for (let i = 1; i < candidates.length; i++) {
    if (order(candidates[i], best) * dir < 0) best = candidates[i]
  }
  return best
}

function collect(value: unknown, path: string[], depth: number, out: unknown[]): void {
  if (depth === path.length) {
    if (!Array.isArray(value)) out.push(value ?? null)
    else if (value.length === 0) out.push(EMPTY_ARRAY)
    else out.push(...value)
    return
  }
  const segment = path[depth]!
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) {
      collect(value[Number(segment)], path, depth + 1, out)
      return
    }
    for (const item of value) {
      if (isPlainObject(item)) collect(item, path, depth, out)
    }
    return
  }
  if (isPlainObject(value)) collect(value[segment], path, depth + 1, out)
  else out.push(null)
}
