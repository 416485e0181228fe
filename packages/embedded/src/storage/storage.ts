import type { ChangeLogStore } from './change-log-store.js'
import type { CommitClock } from './commit-clock.js'

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
  /**
   * Applies a batch atomically: documents and their index entries change in one transaction
   * (inside `transact`, that of the body). Resolves once committed (outside `transact`, durably).
   */
  write(batch: WriteBatch): Promise<void>
  /**
   * Group commit: runs `body` (its reads and `write`s) inside a write transaction shared with the
   * bodies started while it is open. `applied` settles once the body is done: its writes are then
   * visible to the next body (so the write queue may start it: read-check-write stays exact);
   * `durable` settles with the body's outcome once the transaction is committed and on disk. The
   * bodies of concurrent writes thus share one commit and one fsync. `more` tells whether other
   * writes are waiting to join (then the transaction stays open a moment longer for them).
   */
  transact<T>(body: () => Promise<T>, more?: () => boolean): { applied: Promise<void>, durable: Promise<T> }
  /** Resolves once every batch written so far is on disk. */
  flushed(): Promise<void>
  /**
   * A lazy walk over all documents. The engine calls `return()` when it stops early. A walk may
   * be left suspended for minutes (a slow HTTP client, an idle wire cursor): it must then hold no
   * read transaction, only its position. Each step sees committed data; the walk as a whole is
   * not a snapshot (a document deleted meanwhile is skipped, one inserted meanwhile may be seen).
   */
  scan(): Iterator<Uint8Array, undefined>
  /**
   * `scan`, with `visit` run on each document's bytes as the walk reads them, and what it returns
   * yielded (undefined: nothing). The bytes are valid only during the call: lmdb-storage hands out
   * its read buffer instead of a copy, so a scan that looks at a field or two of each document
   * and keeps few of them copies only those (`visit` copies what it keeps). Same batches and
   * isolation as `scan`. Yields each kept value with its document's storage key.
   */
  visit<T>(visit: (bytes: Uint8Array) => T | undefined): Iterator<[key: string, value: T], undefined>
  /**
   * A number that changes whenever what reads see may have changed: a write applied (visible
   * inside its transaction), then its commit (visible to every read). Undefined while a write
   * is not committed yet: reads outside its transaction still see the data before it. What is
   * derived from reads at one version (field-columns.ts) stays exact while the version does.
   */
  version(): number | undefined
  /**
   * The entries of index `index` whose entry key lies in `[start, end)` (byte order; see
   * index-keys.ts), ascending or, with `reverse`, descending: each entry's key (index key, `_id`,
   * storage key; valid until the next step) and its document's storage key. Lazy, with the same
   * rules as `scan` (no read transaction held between steps).
   */
  indexRange(index: string, range: IndexRange): Iterator<IndexHit, undefined>
  /** Removes every entry of one index (dropped, or about to be rebuilt). */
  clearIndex(index: string): Promise<void>
  /**
   * The storage keys in `[start, end)` (binary order of their UTF-8 bytes; absent is unbounded),
   * ascending or, with `reverse`, descending. Lazy, with the same rules as `scan`. Optional: a
   * backend whose keys have no order (memory-storage, a Map) leaves it out, and its reads scan.
   */
  keyRange?(range: KeyRange): IterableIterator<string>
}

/** A range of storage keys: `start` inclusive, `end` exclusive; absent is unbounded. */
export interface KeyRange {
  start?: string | undefined
  end?: string | undefined
  reverse?: boolean | undefined
}

/** A byte range over index entry keys: `start` inclusive, `end` exclusive; absent is unbounded. */
export interface IndexRange {
  start?: Uint8Array | undefined
  end?: Uint8Array | undefined
  reverse?: boolean | undefined
}

/** An entry met by a walk: its key in storage (without the index name) and its document's storage key. */
export type IndexHit = [entryKey: Uint8Array, docKey: string]

/** One index entry: the index key's bytes followed by the `_id`'s (entryPrefixOf), and the storage key of its document. */
export interface IndexEntry {
  index: string
  key: Uint8Array
  docKey: string
}

export interface WriteBatch {
  puts?: [key: string, bytes: Uint8Array][]
  removes?: string[]
  addEntries?: IndexEntry[]
  removeEntries?: IndexEntry[]
  /** New index definitions of the collection, written in the same transaction (a multikey flag). */
  indexes?: StoredIndex[]
  /** Entries of the change log (changes/change-entry.ts), appended in the same transaction. */
  changes?: Uint8Array[]
}

/** Index definitions as persisted, so unique indexes survive a restart. */
export interface StoredIndex {
  name: string
  key: Record<string, 1 | -1>
  unique: boolean
  /** Some document has an array on an indexed path: ranges are not intersected, no sort by it. */
  multikey?: boolean
  /** The index's entries are in storage (absent on indexes from before entries were stored: rebuilt on load). */
  built?: boolean
  /**
   * The entries' key format (index-catalog.ts's ENTRY_FORMAT); absent on entries from before
   * the `_id` followed the index key (ties in storage-key order): rebuilt on load like unbuilt ones.
   */
  format?: number
}

export interface Storage {
  collection(name: string): CollectionStorage
  /** The change log that `write`s append their `changes` to (absent: a transaction's overlay, which hands them to its commit's batch). */
  readonly changeLog?: ChangeLogStore
  /** When each document last changed, for transactions' write conflicts (absent: a transaction's overlay, whose writes are not committed). */
  readonly commits?: CommitClock
  readIndexes(collection: string): StoredIndex[]
  writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void>
  /** A collection's options as `collMod` set them (`changeStreamPreAndPostImages`); {} when none were. */
  readOptions(collection: string): Record<string, unknown>
  /** Replaces a collection's options, durably; a dropped collection loses them. */
  writeOptions(collection: string, options: Record<string, unknown>): Promise<void>
  /** Storage names of the collections that exist (were written to, or have index definitions). */
  listCollections(): string[]
  /** Removes one collection's documents and index definitions; it then no longer exists. */
  dropCollection(name: string): Promise<void>
  /** Removes every collection and index definition. */
  dropAll(): Promise<void>
  close(): Promise<void>
}
