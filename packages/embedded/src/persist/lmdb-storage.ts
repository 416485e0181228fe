import { type Database, open, type RootDatabase } from 'lmdb'
import { DirectoryLock } from './directory-lock.js'
import type { CollectionStorage, Storage, StoredIndex } from './storage.js'

/** Documents read per short read transaction by a scan (a batch is copied out, then released). */
export const SCAN_BATCH = 256
/** A batch also stops once it holds this many bytes, so large documents keep a stalled scan small. */
const SCAN_BATCH_BYTES = 64 * 1024

/** Named LMDB databases one environment may hold: one per collection plus the catalog. */
const MAX_COLLECTIONS = 1000

/**
 * The durable backend: one LMDB environment per directory, one named database per collection
 * holding raw BSON, and a `catalog` database listing collections and their index definitions.
 *
 * `overlappingSync: false` makes each write promise resolve only after LMDB's commit has been
 * fsync'ed, so an acknowledged write survives `kill -9` and power loss. Concurrent writes issued
 * in one event turn still share a transaction (lmdb-js batches them), which keeps this fast.
 */
export class LmdbStorage implements Storage {
  readonly #root: RootDatabase
  readonly #catalog: Database<unknown, string>
  readonly #collections = new Map<string, LmdbCollection>()
  /** One process per directory (directory-lock.ts), taken before LMDB opens it. */
  readonly #lock: DirectoryLock

  constructor(path: string) {
    this.#lock = DirectoryLock.acquire(path)
    try {
      // noSubdir: false, or lmdb takes a path with a dot in its last segment (`data.v1`) for a file.
      this.#root = open({ path, noSubdir: false, maxDbs: MAX_COLLECTIONS, overlappingSync: false, noSync: false })
      this.#catalog = this.#root.openDB<unknown, string>('catalog', {})
    } catch (error) {
      this.#lock.release()
      throw error
    }
  }

  collection(name: string): CollectionStorage {
    let found = this.#collections.get(name)
    if (!found) {
      const db = this.#root.openDB<Buffer, string>(`c:${name}`, { encoding: 'binary' })
      found = new LmdbCollection(db, () => this.#register(name))
      this.#collections.set(name, found)
    }
    return found
  }

  readIndexes(collection: string): StoredIndex[] {
    return (this.#catalog.get(`indexes:${collection}`) as StoredIndex[] | undefined) ?? []
  }

  async writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void> {
    await Promise.all([this.#catalog.put(`indexes:${collection}`, indexes), this.#register(collection)])
  }

  listCollections(): string[] {
    return [...this.#catalog.getKeys({ start: 'collection:', end: 'collection;' })].map((key) => key.slice('collection:'.length))
  }

  async dropCollection(name: string): Promise<void> {
    await (this.collection(name) as LmdbCollection).clear()
    await Promise.all([this.#catalog.remove(`collection:${name}`), this.#catalog.remove(`indexes:${name}`)])
  }

  async dropAll(): Promise<void> {
    const names = [...this.#catalog.getKeys({ start: 'collection:', end: 'collection;' })]
    for (const key of names) {
      const name = key.slice('collection:'.length)
      await (this.collection(name) as LmdbCollection).clear()
    }
    await this.#catalog.clearAsync()
  }

  async close(): Promise<void> {
    try {
      await this.#root.flushed
      await this.#root.close()
    } finally {
      this.#lock.release()
    }
  }

  /** Remembers that a collection exists, so dropAll finds it after a restart. */
  async #register(name: string): Promise<void> {
    const key = `collection:${name}`
    if (this.#catalog.get(key) === undefined) await this.#catalog.put(key, true)
  }
}

class LmdbCollection implements CollectionStorage {
  readonly #db: Database<Buffer, string>
  readonly #register: () => Promise<void>
  #registered = false

  constructor(db: Database<Buffer, string>, register: () => Promise<void>) {
    this.#db = db
    this.#register = register
  }

  get(key: string): Uint8Array | undefined {
    return this.#db.get(key)
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const written = this.#db.put(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    if (!this.#registered) {
      await this.#register()
      this.#registered = true
    }
    if (!(await written)) throw new Error(`lmdb refused the write of ${key}`)
  }

  async remove(key: string): Promise<void> {
    await this.#db.remove(key)
  }

  /**
   * Reads at most SCAN_BATCH documents (and about SCAN_BATCH_BYTES) at a time, each batch copied
   * out within one short read transaction, and continues after the last key in a fresh one. A
   * lazy `getRange()` would hold its read transaction for as long as the walk lives: across a
   * slow client's backpressure or between two getMores, so a few hundred stalled readers would
   * take every LMDB reader slot (MDB_READERS_FULL) and pin old pages. Each batch is a consistent
   * snapshot; a long walk is not (see the README's engine section).
   */
  *scan(): Generator<Uint8Array, undefined> {
    let after: string | undefined
    for (;;) {
      const { entries, more } = this.#readBatch(after)
      for (const [, value] of entries) yield value
      if (!more) return undefined
      after = entries[entries.length - 1]?.[0]
    }
  }

  #readBatch(after: string | undefined): { entries: [string, Uint8Array][], more: boolean } {
    const range = after === undefined ? { limit: SCAN_BATCH } : { start: after, exclusiveStart: true, limit: SCAN_BATCH }
    const entries: [string, Uint8Array][] = []
    let bytes = 0
    // Drained (or left) synchronously, so the range's cursor and read transaction are released
    // before this returns; lmdb-js hands out copies of binary values, which stay valid after it.
    for (const { key, value } of this.#db.getRange(range)) {
      entries.push([key, value])
      bytes += value.byteLength
      if (bytes >= SCAN_BATCH_BYTES) return { entries, more: true }
    }
    return { entries, more: entries.length === SCAN_BATCH }
  }

  async clear(): Promise<void> {
    await this.#db.clearAsync()
    this.#registered = false
  }
}
