import { operationNotSupportedInTransactionError } from '../errors.js'
import { pooledCopy } from '../storage/pooled-copy.js'
import { entryKeyOf, SortedEntries } from '../storage/sorted-entries.js'
import type { CollectionStorage, IndexEntry, IndexHit, IndexRange, Storage, StoredIndex, WriteBatch } from '../storage/storage.js'

/** What a transaction wrote to one collection, net of its own changes: the batch its commit applies. */
export interface PendingWrites {
  readonly storageName: string
  readonly batch: WriteBatch
}

/**
 * The storage a transaction's operations see: its own writes over the engine's committed data. Its
 * writes stay here (nothing reaches the engine's storage, so no other reader sees them, and a crash
 * before the commit leaves nothing behind); the commit applies them all in one storage transaction
 * (engine-transaction.ts). Before its first write to a collection, `acquire` takes that collection's
 * write queue for the transaction, so no other writer changes what it read and wrote until it ends.
 *
 * Definitions follow MongoDB's rule for transactions: one may create a collection, and indexes on a
 * collection that did not exist before it (created in it, or by the index); an existing collection's
 * indexes, a drop or a rebuild answer OperationNotSupportedInTransaction (263). What it defined is
 * applied by the commit with its documents.
 */
export class OverlayStorage implements Storage {
  readonly #base: Storage
  readonly #acquire: (storageName: string) => Promise<void>
  readonly #conflicts: (storageName: string, key: string) => void
  readonly #collections = new Map<string, OverlayCollection>()

  /** `conflicts` throws when the transaction may not write document `key` (changed since its snapshot). */
  constructor(base: Storage, acquire: (storageName: string) => Promise<void>, conflicts: (storageName: string, key: string) => void) {
    this.#base = base
    this.#acquire = acquire
    this.#conflicts = conflicts
  }

  collection(name: string): OverlayCollection {
    let found = this.#collections.get(name)
    if (!found) {
      found = new OverlayCollection(this.#base.collection(name), () => this.#acquire(name), (key) => this.#conflicts(name, key), () => !this.#base.listCollections().includes(name))
      this.#collections.set(name, found)
    }
    return found
  }

  readIndexes(collection: string): StoredIndex[] {
    return this.#collections.get(collection)?.indexes ?? this.#base.readIndexes(collection)
  }

  /** Creates a collection (`create`: no indexes yet) the commit makes exist; an existing collection's definitions stay as they are. */
  async writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void> {
    if (this.#base.listCollections().includes(collection)) throw operationNotSupportedInTransactionError(`changing the definitions of the existing collection ${collection}`)
    await this.#acquire(collection)
    await this.collection(collection).write({ indexes })
  }

  readOptions(collection: string): Record<string, unknown> {
    return this.#base.readOptions(collection)
  }

  writeOptions(): Promise<void> {
    return Promise.reject(operationNotSupportedInTransactionError('collMod'))
  }

  listCollections(): string[] {
    const names = new Set(this.#base.listCollections())
    for (const [name, collection] of this.#collections) if (collection.written || collection.indexes !== undefined) names.add(name)
    return [...names]
  }

  dropCollection(): Promise<void> {
    return Promise.reject(operationNotSupportedInTransactionError('dropping a collection'))
  }

  dropAll(): Promise<void> {
    return Promise.reject(operationNotSupportedInTransactionError('dropping a database'))
  }

  /** Nothing of its own to close: the engine's storage outlives its transactions. */
  async close(): Promise<void> {}

  /** Every collection the transaction changed, with the batch that makes its changes. */
  pending(): PendingWrites[] {
    return [...this.#collections].flatMap(([storageName, collection]) => {
      const batch = collection.pending()
      return batch === undefined ? [] : [{ storageName, batch }]
    })
  }
}

/** One collection seen by a transaction: its documents and index entries over the committed ones. */
class OverlayCollection implements CollectionStorage {
  readonly #base: CollectionStorage
  readonly #acquire: () => Promise<void>
  readonly #conflicts: (key: string) => void
  /** Whether the collection did not exist when the transaction defined something of it (then it may define its indexes). */
  readonly #isNew: () => boolean
  /** Documents the transaction wrote, by storage key; null where it removed one. */
  readonly #docs = new Map<string, Uint8Array | null>()
  /** Index entries the transaction added, per index (for reads), and by identity (for the commit). */
  readonly #added = new Map<string, SortedEntries>()
  readonly #addedEntries = new Map<string, IndexEntry>()
  /** Committed index entries the transaction removed, by identity. */
  readonly #removed = new Map<string, IndexEntry>()
  /** Index definitions a write changed (a multikey flag). */
  indexes: StoredIndex[] | undefined
  /** Change log entries of the writes (storage.ts `changes`), appended by the commit in its own batch. */
  readonly #changes: Uint8Array[] = []

  constructor(base: CollectionStorage, acquire: () => Promise<void>, conflicts: (key: string) => void, isNew: () => boolean) {
    this.#base = base
    this.#acquire = acquire
    this.#conflicts = conflicts
    this.#isNew = isNew
  }

  get written(): boolean {
    return [...this.#docs.values()].some((bytes) => bytes !== null)
  }

  get(key: string): Uint8Array | undefined {
    if (this.#docs.has(key)) return this.#docs.get(key) ?? undefined
    return this.#base.get(key)
  }

  /** Kept here: the commit applies it. Net of the transaction's own earlier entries. */
  async write(batch: WriteBatch): Promise<void> {
    // Checked before anything of the batch is kept: a refused write leaves the overlay as it was.
    for (const key of batch.removes ?? []) if (!this.#docs.has(key)) this.#conflicts(key)
    for (const [key] of batch.puts ?? []) if (!this.#docs.has(key)) this.#conflicts(key)
    for (const key of batch.removes ?? []) this.#docs.set(key, null)
    for (const [key, bytes] of batch.puts ?? []) this.#docs.set(key, bytes)
    for (const entry of batch.removeEntries ?? []) {
      const id = entryId(entry)
      if (this.#addedEntries.delete(id)) this.#entries(entry.index).remove(entryKeyOf(entry.key, entry.docKey))
      else this.#removed.set(id, entry)
    }
    for (const entry of batch.addEntries ?? []) {
      const id = entryId(entry)
      if (this.#removed.delete(id)) continue
      this.#addedEntries.set(id, entry)
      this.#entries(entry.index).add(entryKeyOf(entry.key, entry.docKey), entry.docKey)
    }
    if (batch.indexes) this.indexes = batch.indexes
    if (batch.changes) this.#changes.push(...batch.changes)
  }

  /** The body runs once the transaction holds the collection's write queue; nothing is shared with others. */
  transact<T>(body: () => Promise<T>): { applied: Promise<void>, durable: Promise<T> } {
    const durable = this.#acquire().then(body)
    return { applied: durable.then(() => undefined, () => undefined), durable }
  }

  async flushed(): Promise<void> {}

  *scan(): Generator<Uint8Array, undefined> {
    for (const [, bytes] of this.visit((bytes) => bytes)) yield bytes
    return undefined
  }

  /** The committed documents with the transaction's versions in their place, then the ones it inserted. */
  *visit<T>(visit: (bytes: Uint8Array) => T | undefined): Generator<[string, T], undefined> {
    if (this.#docs.size === 0) return yield* walk(this.#base.visit(visit))
    const seen = new Set<string>()
    // The committed bytes are valid only during the base's visit: copied, since which ones count is known after it.
    for (const [key, committed] of walk(this.#base.visit(pooledCopy))) {
      const own = this.#docs.get(key)
      if (own !== undefined) seen.add(key)
      const bytes = own === undefined ? committed : own
      if (bytes === null) continue
      const value = visit(bytes)
      if (value !== undefined) yield [key, value]
    }
    for (const [key, bytes] of this.#docs) {
      if (bytes === null || seen.has(key)) continue
      const value = visit(bytes)
      if (value !== undefined) yield [key, value]
    }
    return undefined
  }

  /** Never cached: what reads derive from this storage is recomputed (field-columns.ts). */
  version(): undefined {
    return undefined
  }

  /** The committed entries minus those the transaction removed, merged in key order with those it added. */
  *indexRange(index: string, range: IndexRange): Generator<IndexHit, undefined> {
    const base = this.#base.indexRange(index, range)
    const own = this.#added.get(index)?.range(range)
    const order = range.reverse ? -1 : 1
    const nextBase = (): IndexHit | undefined => {
      for (let next = base.next(); !next.done; next = base.next()) {
        const [entryKey, docKey] = next.value
        if (!this.#removed.has(`${index}\0${latin1(entryKey)}`)) return [Buffer.from(entryKey), docKey]
      }
      return undefined
    }
    let committed = nextBase()
    let added = own?.next().value
    try {
      while (committed !== undefined || added !== undefined) {
        if (added === undefined || (committed !== undefined && order * Buffer.compare(committed[0], added[0]) <= 0)) {
          yield committed!
          committed = nextBase()
        } else {
          yield added
          added = own?.next().value
        }
      }
    } finally {
      base.return?.(undefined)
    }
    return undefined
  }

  /** Before an index of a new collection is created: its entries are all the transaction's own (none yet, but for a name used twice). */
  async clearIndex(index: string): Promise<void> {
    if (!this.#isNew()) throw operationNotSupportedInTransactionError('building an index of an existing collection')
    for (const [id, entry] of this.#addedEntries) if (entry.index === index) this.#addedEntries.delete(id)
    this.#added.delete(index)
  }

  /** The batch that applies the transaction's changes to the committed data; undefined when it changed nothing. */
  pending(): WriteBatch | undefined {
    const puts: [string, Uint8Array][] = []
    const removes: string[] = []
    for (const [key, bytes] of this.#docs) {
      if (bytes === null) removes.push(key)
      else puts.push([key, bytes])
    }
    const batch: WriteBatch = { puts, removes, addEntries: [...this.#addedEntries.values()], removeEntries: [...this.#removed.values()] }
    if (this.indexes) batch.indexes = this.indexes
    if (this.#changes.length > 0) batch.changes = [...this.#changes]
    const empty = puts.length === 0 && removes.length === 0 && batch.addEntries!.length === 0 && batch.removeEntries!.length === 0
    return empty && !this.indexes && this.#changes.length === 0 ? undefined : batch
  }

  #entries(index: string): SortedEntries {
    let found = this.#added.get(index)
    if (!found) {
      found = new SortedEntries()
      this.#added.set(index, found)
    }
    return found
  }
}

/** An iterator as an iterable, returned (closed) however the loop over it ends. */
function* walk<T>(iterator: Iterator<T, undefined>): Generator<T, undefined> {
  try {
    for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value
  } finally {
    iterator.return?.(undefined)
  }
  return undefined
}

/** An index entry's identity: its index, index key and document. */
function entryId(entry: IndexEntry): string {
  return `${entry.index}\0${latin1(entryKeyOf(entry.key, entry.docKey))}`
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}
