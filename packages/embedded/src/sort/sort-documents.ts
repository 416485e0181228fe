import { compareBson } from '../bson/bson-order.js'
import { checkFieldPath } from '../check-field-path.js'
import { type Document, isPlainObject } from '../document.js'
import { SortMemoryLimit } from './sort-memory-limit.js'

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
  /** The bytes the collector may hold (sort-memory-limit.ts); unlimited when absent. */
  memoryLimitBytes?: number | undefined
  /** An aggregation's `allowDiskUse`: the limit holds all the same (no external sort), the error says so. */
  allowDiskUse?: boolean | undefined
  /** Compares two values: BSON order (the default), or BSON order with a collation's strings (collation.ts). */
  order?: ValueOrder | undefined
}

/**
 * Collects documents and returns them in `sort` order. With a `keep` bound (skip + limit) it
 * holds at most 2 × keep documents: whenever the buffer fills it is sorted and cut back to
 * `keep`, so a top-k over a large scan stays small. After a cut, a document that sorts no
 * earlier than the last one kept can never make the top `keep` (ties keep scan order), so it
 * is dropped on arrival. Array.sort is stable, so ties keep scan order, as they do in the buffer.
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
    this.#memory = options.memoryLimitBytes === undefined ? undefined : new SortMemoryLimit(options.memoryLimitBytes, options.allowDiskUse)
    this.#order = options.order ?? compareBson
  }

  /**
   * Adds one document, sorted by the fields of `doc`, which needs to hold only the first segment
   * of each sort path (bson-field-reader.ts). What the result hands back is `value` (by default
   * `doc` itself), e.g. the document's BSON bytes to decode only if it makes the cut; `size` is
   * what it holds in memory, charged to the memory limit.
   */
  add(doc: Document, value: T = doc as T, size = 0): void {
    this.offer(doc, () => value, () => size)
  }

  /**
   * As `add`, with the value and its size made only if the document may make the cut: most
   * documents of a top-k over a large scan are dropped on arrival, before anything is copied or
   * measured for them.
   */
  offer(doc: Document, value: () => T, size: () => number): void {
    const keys = this.#keysOf(doc)
    if (this.#cutoff !== undefined && this.#compareKeys(keys, this.#cutoff.keys) >= 0) return
    const entry = { keys, value: value(), size: this.#memory ? size() : 0 }
    this.#entries.push(entry)
    this.#memory?.charge(entry.size)
    if (this.#entries.length >= 2 * this.#keep) this.#compact()
  }

  /**
   * Whether `doc` could still make the cut now (`add` would keep it): a scan need not copy a
   * document that cannot. The cut only tightens, so a document refused now never makes it.
   */
  competes(doc: Document): boolean {
    if (this.#cutoff === undefined) return true
    return this.#compareKeys(this.#keysOf(doc), this.#cutoff.keys) < 0
  }

  result(): T[] {
    this.#compact()
    return this.#entries.map((entry) => entry.value)
  }

  #compact(): void {
    this.#entries.sort((a, b) => this.#compare(a, b))
    if (this.#entries.length >= this.#keep) {
      this.#entries.length = this.#keep
      this.#cutoff = this.#entries[this.#keep - 1]
      if (this.#memory) this.#memory.reset(this.#entries.reduce((sum, entry) => sum + entry.size, 0))
    }
  }

  #keysOf(doc: Document): unknown[] {
    return this.#fields.map(([path, dir]) => sortKeyOf(doc, path, dir, this.#order))
  }

  #compare(a: Entry<T>, b: Entry<T>): number {
    return this.#compareKeys(a.keys, b.keys)
  }

  #compareKeys(a: unknown[], b: unknown[]): number {
    for (let i = 0; i < this.#fields.length; i++) {
      const order = this.#order(a[i], b[i])
      if (order !== 0) return order * this.#fields[i]![1]
    }
    return 0
  }
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
