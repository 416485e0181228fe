import type { CollectionStorage, Storage, StoredIndex } from './storage.js'

/**
 * The in-memory backend: BSON bytes in a Map per collection. Stored bytes are never handed out
 * for mutation (callers only decode them), so keeping them as-is is safe.
 */
export class MemoryStorage implements Storage {
  readonly #collections = new Map<string, MemoryCollection>()
  readonly #indexes = new Map<string, StoredIndex[]>()

  collection(name: string): CollectionStorage {
    let found = this.#collections.get(name)
    if (!found) {
      found = new MemoryCollection()
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

  listCollections(): string[] {
    return [...this.#collections].filter(([name, c]) => c.exists || this.#indexes.has(name)).map(([name]) => name)
  }

  async dropCollection(name: string): Promise<void> {
    this.#collections.get(name)?.clear()
    this.#indexes.delete(name)
  }

  async dropAll(): Promise<void> {
    for (const collection of this.#collections.values()) collection.clear()
    this.#indexes.clear()
  }

  async close(): Promise<void> {}
}

class MemoryCollection implements CollectionStorage {
  readonly #docs = new Map<string, Uint8Array>()
  /** Set by the first write, like a server collection that exists once written to. */
  exists = false

  get(key: string): Uint8Array | undefined {
    return this.#docs.get(key)
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    this.#docs.set(key, bytes)
    this.exists = true
  }

  async remove(key: string): Promise<void> {
    this.#docs.delete(key)
  }

  scan(): Iterator<Uint8Array, undefined> {
    // Map iterators are live and tolerate writes during the walk, like a server cursor, and hold
    // nothing but their position: a walk left suspended (a stalled client, an idle wire cursor)
    // costs no more than that. Same isolation as lmdb-storage's batched scan: a document deleted
    // before the walk reaches it is skipped, one inserted meanwhile may or may not be seen.
    return this.#docs.values()
  }

  clear(): void {
    this.#docs.clear()
    this.exists = false
  }
}
