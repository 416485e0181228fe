import { MemoryChangeLog } from './change-log-store.js'
import { CommitClock } from './commit-clock.js'
import { entryKeyOf, SortedEntries } from './sorted-entries.js'
import type { CollectionStorage, IndexHit, IndexRange, Storage, StoredIndex, WriteBatch } from './storage.js'

/**
 * The in-memory backend: BSON bytes in a Map per collection. Stored bytes are never handed out
 * for mutation (callers only decode them), so keeping them as-is is safe.
 */
export class MemoryStorage implements Storage {
  readonly #collections = new Map<string, MemoryCollection>()
  readonly #indexes = new Map<string, StoredIndex[]>()
  readonly #options = new Map<string, Record<string, unknown>>()
  readonly changeLog = new MemoryChangeLog()
  readonly commits = new CommitClock()

  collection(name: string): CollectionStorage {
    let found = this.#collections.get(name)
    if (!found) {
      found = new MemoryCollection((indexes) => this.#indexes.set(name, indexes), this.changeLog)
      this.#collections.set(name, found)
    }
    return found
  }

  readIndexes(collection: string): StoredIndex[] {
    return this.#indexes.get(collection) ?? []
  }

  async writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void> {
    this.collection(collection)
    this.#indexes.set(collection, indexes)
  }

  readOptions(collection: string): Record<string, unknown> {
    return this.#options.get(collection) ?? {}
  }

  async writeOptions(collection: string, options: Record<string, unknown>): Promise<void> {
    this.#options.set(collection, options)
  }

  listCollections(): string[] {
    return [...this.#collections].filter(([name, c]) => c.exists || this.#indexes.has(name)).map(([name]) => name)
  }

  async dropCollection(name: string): Promise<void> {
    this.#collections.get(name)?.clear()
    this.#indexes.delete(name)
    this.#options.delete(name)
  }

  async dropAll(): Promise<void> {
    for (const collection of this.#collections.values()) collection.clear()
    this.#indexes.clear()
    this.#options.clear()
  }

  async close(): Promise<void> {}
}

class MemoryCollection implements CollectionStorage {
  readonly #docs = new Map<string, Uint8Array>()
  readonly #indexes = new Map<string, SortedEntries>()
  readonly #writeIndexes: (indexes: StoredIndex[]) => void
  readonly #changeLog: MemoryChangeLog
  #version = 0
  /** Set by the first write, like a server collection that exists once written to. */
  exists = false

  constructor(writeIndexes: (indexes: StoredIndex[]) => void, changeLog: MemoryChangeLog) {
    this.#writeIndexes = writeIndexes
    this.#changeLog = changeLog
  }

  get(key: string): Uint8Array | undefined {
    return this.#docs.get(key)
  }

  /** Applied synchronously, so a batch is atomic and visible at once. */
  async write(batch: WriteBatch): Promise<void> {
    this.#version++
    for (const key of batch.removes ?? []) this.#docs.delete(key)
    for (const [key, bytes] of batch.puts ?? []) this.#docs.set(key, bytes)
    for (const entry of batch.removeEntries ?? []) this.#entries(entry.index).remove(entryKeyOf(entry.key, entry.docKey))
    for (const entry of batch.addEntries ?? []) this.#entries(entry.index).add(entryKeyOf(entry.key, entry.docKey), entry.docKey)
    if (batch.indexes) this.#writeIndexes(batch.indexes)
    if (batch.changes) this.#changeLog.append(batch.changes)
    if ((batch.puts?.length ?? 0) > 0) this.exists = true
  }

  /** Nothing to share: the body runs at once, and its writes are done when it is. */
  transact<T>(body: () => Promise<T>): { applied: Promise<void>, durable: Promise<T> } {
    const durable = body()
    return { applied: durable.then(() => undefined, () => undefined), durable }
  }

  async flushed(): Promise<void> {}

  scan(): Iterator<Uint8Array, undefined> {
    // Map iterators are live and tolerate writes during the walk, like a server cursor, and hold
    // nothing but their position: a walk left suspended (a stalled client, an idle wire cursor)
    // costs no more than that. Same isolation as lmdb-storage's batched scan: a document deleted
    // before the walk reaches it is skipped, one inserted meanwhile may or may not be seen.
    return this.#docs.values()
  }

  /** The stored bytes are stable here: `visit` sees them as they are. */
  *visit<T>(visit: (bytes: Uint8Array) => T | undefined): Generator<[string, T], undefined> {
    for (const [key, bytes] of this.#docs) {
      const value = visit(bytes)
      if (value !== undefined) yield [key, value]
    }
    return undefined
  }

  /** Writes apply at once: every write is a new version. */
  version(): number {
    return this.#version
  }

  indexRange(index: string, range: IndexRange): Iterator<IndexHit, undefined> {
    return this.#entries(index).range(range)
  }

  async clearIndex(index: string): Promise<void> {
    this.#indexes.delete(index)
  }

  #entries(index: string): SortedEntries {
    let found = this.#indexes.get(index)
    if (!found) {
      found = new SortedEntries()
      this.#indexes.set(index, found)
    }
    return found
  }

  clear(): void {
    this.#version++
    this.#docs.clear()
    this.#indexes.clear()
    this.exists = false
  }
}
