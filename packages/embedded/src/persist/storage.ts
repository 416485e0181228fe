/**
 * What the engine needs from a place to keep documents. Two backends implement it with the
 * same contract: memory-storage (a Map, for tests and ephemeral use) and lmdb-storage (durable).
 *
 * Keys are canonical `_id` keys (see value-key.ts); values are BSON bytes. Reads are
 * synchronous; a write's promise resolves only once the write is committed (and, for lmdb,
 * flushed to disk).
 */
export interface CollectionStorage {
  get(key: string): Uint8Array | undefined
  put(key: string, bytes: Uint8Array): Promise<void>
  remove(key: string): Promise<void>
  /**
   * A lazy walk over all documents. The engine calls `return()` when it stops early. A walk may
   * be left suspended for minutes (a slow HTTP client, an idle wire cursor): it must then hold no
   * read transaction, only its position. Each step sees committed data; the walk as a whole is
   * not a snapshot (a document deleted meanwhile is skipped, one inserted meanwhile may be seen).
   */
  scan(): Iterator<Uint8Array, undefined>
}

/** Index definitions as persisted, so unique indexes survive a restart. */
export interface StoredIndex {
  name: string
  key: Record<string, 1 | -1>
  unique: boolean
}

export interface Storage {
  collection(name: string): CollectionStorage
  readIndexes(collection: string): StoredIndex[]
  writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void>
  /** Storage names of the collections that exist (were written to, or have index definitions). */
  listCollections(): string[]
  /** Removes one collection's documents and index definitions; it then no longer exists. */
  dropCollection(name: string): Promise<void>
  /** Removes every collection and index definition. */
  dropAll(): Promise<void>
  close(): Promise<void>
}
