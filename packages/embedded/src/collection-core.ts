import { decodeDocument, encodeDocument } from './bson-codec.js'
import type { Collation } from './collation.js'
import { compileFilter, filterCollation } from './compile-filter.js'
import { Deadline } from './deadline.js'
import type { Document } from './document.js'
import { closedError, duplicateKeyError } from './errors.js'
import { ID_INDEX, IndexCatalog } from './index-catalog.js'
import type { CollectionStorage, Storage } from './persist/storage.js'
import { pointKeysOf } from './point-keys.js'
import { scanDocuments } from './scan-documents.js'
import { SortedCollector, type SortSpec } from './sort-documents.js'
import { toValueKey } from './value-key.js'
import { WriteQueue } from './write-queue.js'

/** A stored document with its storage key. */
export type Found = [key: string, doc: Document]

/** Where a collection lives: its database, its name, and the name its storage goes by. */
export interface Namespace {
  db: string
  name: string
  storageName: string
}

/**
 * The primitives every write of one collection is built from: the write queue, the unique
 * indexes, and storage commits that keep both in step. The driver-shaped methods
 * (embedded-collection.ts) and the multi-document writes (modify-documents.ts) compose them.
 */
export class CollectionCore {
  readonly ns: string
  readonly queue = new WriteQueue()
  readonly storage: CollectionStorage
  readonly indexes: IndexCatalog
  readonly #isOpen: () => boolean
  #loaded = false
  /** Writes between their storage change and the matching index update (see pointKeys). */
  #unsettled = 0

  constructor(storage: Storage, namespace: Namespace, isOpen: () => boolean) {
    this.ns = `${namespace.db}.${namespace.name}`
    this.storage = storage.collection(namespace.storageName)
    this.indexes = new IndexCatalog(storage, namespace.storageName, this.ns)
    this.#isOpen = isOpen
  }

  /** Runs `task` in the write queue, with the unique indexes loaded. */
  write<T>(task: () => Promise<T>): Promise<T> {
    this.assertOpen()
    return this.queue.run(() => {
      this.assertOpen()
      this.#ensureLoaded()
      return task()
    })
  }

  /**
   * Drops an index in the write queue without loading the unique indexes first: dropping is how
   * a collection whose unique index fails to load (duplicates on disk) gets repaired.
   */
  dropIndex(name: string): Promise<boolean> {
    this.assertOpen()
    return this.queue.run(() => {
      this.assertOpen()
      return this.indexes.drop(name)
    })
  }

  #ensureLoaded(): void {
    if (this.#loaded) return
    this.indexes.load(() => this.all())
    this.#loaded = true
  }

  /** Runs a storage change and its index updates, marking the indexes unusable meanwhile. */
  async #settle<T>(change: () => Promise<T>): Promise<T> {
    this.#unsettled++
    try {
      return await change()
    } finally {
      this.#unsettled--
    }
  }

  assertOpen(): void {
    if (!this.#isOpen()) throw closedError()
  }

  /**
   * The storage keys `filter` restricts its matches to (point-keys.ts), or undefined for a scan.
   * Reads do not wait for the write queue, so unique indexes are consulted only while no write
   * is between changing storage and updating them; they are loaded first if no write has yet.
   */
  pointKeys(filter: Document): string[] | undefined {
    if (this.#unsettled > 0) return pointKeysOf(filter, [])
    this.#ensureLoaded()
    return pointKeysOf(filter, this.indexes.unique)
  }

  /** The first match in scan order, or in `sort` order when one is given (strings compared under `collation`). */
  first(filter: Document, maxTimeMS: number | undefined, sort?: SortSpec, collation?: Collation): Found | undefined {
    const collated = filterCollation(filter, collation)
    const matches = compileFilter(filter, collated)
    const scan = scanDocuments(this.storage, collated ? undefined : this.pointKeys(filter), matches, startDeadline(maxTimeMS))
    let value: Document | undefined
    if (sort && Object.keys(sort).length > 0) {
      const collector = new SortedCollector(sort, 1, collation?.compareValues)
      for (const doc of scan) collector.add(doc)
      value = collector.result()[0]
    } else {
      value = scan.next().value
      scan.return(undefined)
    }
    return value ? [toValueKey(value['_id']), value] : undefined
  }

  /** Every match, collected before any is changed (a write never sees its own effects). */
  matching(filter: Document, maxTimeMS: number | undefined, collation?: Collation): Found[] {
    const found: Found[] = []
    const collated = filterCollation(filter, collation)
    const matches = compileFilter(filter, collated)
    for (const doc of scanDocuments(this.storage, collated ? undefined : this.pointKeys(filter), matches, startDeadline(maxTimeMS))) {
      found.push([toValueKey(doc['_id']), doc])
    }
    return found
  }

  *all(): Generator<Found> {
    const walk = this.storage.scan()
    try {
      for (let next = walk.next(); !next.done; next = walk.next()) {
        const doc = decodeDocument(next.value)
        yield [toValueKey(doc['_id']), doc]
      }
    } finally {
      walk.return?.()
    }
  }

  /** Stores a new document (already copied and `_id`-checked), enforcing every unique index. */
  async insert(stored: Document): Promise<void> {
    const bytes = encodeDocument(stored)
    const key = toValueKey(stored['_id'])
    if (this.storage.get(key) !== undefined) throw duplicateKeyError(this.ns, ID_INDEX, { _id: stored['_id'] })
    this.checkUnique(stored, key)
    await this.#settle(async () => {
      await this.storage.put(key, bytes)
      for (const index of this.indexes.unique) index.add(stored, key)
    })
  }

  checkUnique(doc: Document, key: string): void {
    for (const index of this.indexes.unique) {
      const conflict = index.findConflict(doc, key)
      if (conflict) throw duplicateKeyError(this.ns, index.name, conflict.keyValue)
    }
  }

  /** Stores `after` in place of `before`; false when the bytes are identical (a no-op update). */
  async commit(key: string, before: Document, after: Document): Promise<boolean> {
    const bytes = encodeDocument(after)
    if (Buffer.compare(bytes, this.storage.get(key) ?? new Uint8Array()) === 0) return false
    this.checkUnique(after, key)
    await this.#settle(async () => {
      await this.storage.put(key, bytes)
      for (const index of this.indexes.unique) {
        index.remove(before, key)
        index.add(after, key)
      }
    })
    return true
  }

  async remove(found: Found[]): Promise<number> {
    await this.#settle(async () => {
      await Promise.all(found.map(([key]) => this.storage.remove(key)))
      for (const [key, doc] of found) for (const index of this.indexes.unique) index.remove(doc, key)
    })
    return found.length
  }

  /** Forgets in-memory index state after the collection was dropped underneath. */
  reset(): void {
    this.indexes.clear()
    this.#loaded = false
  }
}

export function startDeadline(maxTimeMS: number | undefined): Deadline {
  const deadline = new Deadline(maxTimeMS)
  deadline.resume()
  return deadline
}
