import { compareBson } from '../bson/bson-order.js'
import { checkFieldPath } from '../check-field-path.js'
import { type Document, isPlainObject } from '../document.js'
import type { Deadline } from '../pace/deadline.js'
import { type Pause, runUnpaced } from '../pace/pause.js'
import { ChunkedList } from './chunked-list.js'
import { pacedSort } from './paced-sort.js'
import type { SortMemoryLimit } from './sort-memory-limit.js'

export type SortSpec = Record<string, 1 | -1>

/** An empty array sorts below null and missing, in both directions (server semantics). */
const EMPTY_ARRAY = Object.freeze({ _bsontype: 'MinKey' })

export type ValueOrder = (a: unknown, b: unknown) => number

/** What a sort hands over: the values kept, in sort order, and the size each was charged. */
export interface SortedValues<T> {
  readonly length: number
  /** The `index`th value in sort order; an object (bytes, a document) is forgotten as it is taken, to be freed once handed on. */
  take(index: number): T
  /** The size the `index`th value in sort order was charged. */
  size(index: number): number
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
  /**
   * The buffer as parallel lists, not an object (and a keys array) per entry: an unbounded sort keeps
   * every match, and 100,000 small objects that live through the scan end up in the old generation,
   * where they (and the copies of a sort refused half-way) stay as garbage until a full collection.
   * Entry i's sort keys are #keys[i × fields .. (i + 1) × fields), its value #values[i], its charged size #sizes[i].
   */
  #keys = new ChunkedList<unknown>()
  #values = new ChunkedList<T>()
  #sizes = new ChunkedList<number>()
  /** The sort keys of the last entry kept by the latest cut, once the buffer has been cut to `keep`. */
  #cutoff: unknown[] | undefined

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
    if (this.#cutoff !== undefined && this.#compareKeys(keys, this.#cutoff) >= 0) return false
    const charged = this.#memory ? size() + entryBytes(keys) : 0
    for (const key of keys) this.#keys.push(key)
    this.#values.push(value())
    this.#sizes.push(charged)
    this.#memory?.charge(charged)
    return this.#values.length >= 2 * this.#keep
  }

  /** What `offer` would charge for `doc` of `size` bytes (to reserve it beforehand: sort-memory-limit.ts). */
  chargeFor(doc: Document, size: number): number {
    return size + entryBytes(this.#keysOf(doc))
  }

  /**
   * Whether `doc` could still make the cut now (`offer` would keep it): a scan need not copy a
   * document that cannot. The cut only tightens, so a document refused now never makes it.
   */
  competes(doc: Document): boolean {
    if (this.#cutoff === undefined) return true
    return this.#compareKeys(this.#keysOf(doc), this.#cutoff) < 0
  }

  /** Sorts the buffer and cuts it back to `keep`, pausing between slices of the sort (`deadline` given). */
  *cut(deadline?: Deadline): Generator<Pause, void> {
    yield* this.#sortBuffer(deadline, true)
  }

  /** Sorts the buffer and cuts it back to `keep`; the keys are kept (in order) only when more offers may follow (`more`). */
  /**
   * Sorts the buffer and cuts it back to `keep`. With `more` (offers may follow) the buffer is rebuilt in
   * sort order; otherwise it stays as it is, and the order (places in the buffer, best first) is returned.
   */
  *#sortBuffer(deadline: Deadline | undefined, more: boolean): Generator<Pause, number[]> {
    const width = this.#fields.length
    const keys = this.#keys
    const compare = (a: number, b: number) => this.#compareAt(keys, a * width, b * width)
    const places = Array.from({ length: this.#values.length }, (_, i) => i)
    const order = deadline === undefined ? places.sort(compare) : yield* pacedSort(places, compare, deadline)
    const cut = order.length >= this.#keep
    if (cut) order.length = this.#keep
    if (this.#memory && cut) this.#memory.reset(order.reduce((sum, at) => sum + this.#sizes.get(at), 0))
    if (!more) return order
    const sortedKeys = new ChunkedList<unknown>()
    const values = new ChunkedList<T>()
    const sizes = new ChunkedList<number>()
    for (const at of order) {
      for (let f = 0; f < width; f++) sortedKeys.push(keys.get(at * width + f))
      values.push(this.#values.get(at))
      sizes.push(this.#sizes.get(at))
    }
    this.#keys = sortedKeys
    this.#values = values
    this.#sizes = sizes
    if (cut) this.#cutoff = Array.from({ length: width }, (_, f) => sortedKeys.get((order.length - 1) * width + f))
    return order
  }

  /** The values kept, in sort order, with the size each was charged: sorted in slices, pausing between them. */
  *sorted(deadline: Deadline): Generator<Pause, SortedValues<T>> {
    const order = yield* this.#sortBuffer(deadline, false)
    const values = this.#values
    const sizes = this.#sizes
    this.#keys = new ChunkedList()
    this.#values = new ChunkedList()
    this.#sizes = new ChunkedList()
    return {
      length: order.length,
      take: (index) => {
        const at = order[index]!
        const value = values.get(at)
        if (typeof value === 'object') values.set(at, undefined as T)
        return value
      },
      size: (index) => sizes.get(order[index]!),
    }
  }

  /** The values kept, in sort order, sorted in one stretch. */
  result(): T[] {
    const order = runUnpaced(this.#sortBuffer(undefined, false))
    return order.map((at) => this.#values.get(at))
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

  /** Compares the buffered keys from `aAt` with those from `bAt`, field by field. */
  #compareAt(keys: ChunkedList<unknown>, aAt: number, bAt: number): number {
    for (let i = 0; i < this.#fields.length; i++) {
      const order = this.#order(keys.get(aAt + i), keys.get(bAt + i))
      if (order !== 0) return order * this.#fields[i]![1]
    }
    return 0
  }
}

/**
 * What one entry of a sort is counted besides its document. Its slots in the collector's lists, the handle of its
 * bytes and its place in the sort's order take about 40 bytes; the rest covers what a sort makes on the way
 * (the merges' arrays) and the heap's slack, so that what sorts count stays close to what they cost.
 */
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
