import { resolve } from 'node:path'
import type { Database, RootDatabase } from 'lmdb'
import { LmdbChangeLog } from './change-log-store.js'
import { CommitClock } from './commit-clock.js'
import { DirectoryLock } from './directory-lock.js'
import { openEnvironment } from './open-environment.js'
import { pooledCopy } from './pooled-copy.js'
import type { CollectionStorage, IndexEntry, IndexHit, IndexRange, KeyRange, Storage, StoredIndex, WriteBatch } from './storage.js'
import { committing } from './write-failure.js'

/** Documents read per short read transaction by a scan (a batch is copied out, then released). */
const SCAN_BATCH = 256
/**
 * A walk's first batch: a page of 20 stops long before 256, and what a batch reads past the
 * page is read, matched and copied for nothing (a fifth of an unindexed filtered page's CPU).
 * Each next batch doubles, up to SCAN_BATCH, so a long walk still takes few transactions.
 */
const FIRST_BATCH = 32

/** The size of the batch after one of `size`. */
function nextBatch(size: number): number {
  return Math.min(size * 2, SCAN_BATCH)
}
/** A batch also stops once it holds this many bytes, so large documents keep a stalled scan small. */
const SCAN_BATCH_BYTES = 64 * 1024

/**
 * The durable backend: one LMDB environment per directory, one named database per collection
 * holding raw BSON (`c:<name>`), one per collection holding its index entries (`x:<name>`: the
 * index name, a 0 byte, then the entry key of index-keys.ts, binary keys in memcmp order), and a
 * `catalog` database listing collections and their index definitions.
 *
 * Each commit promise resolves once LMDB's commit is fsync'ed (open-environment.ts). Group commit
 * (`transact`): each queued write runs as a callback of lmdb-js's asynchronous transaction, and
 * callbacks started while one transaction is open join it, so the writes that pile up during one
 * fsync share the next one.
 *
 * Every write's promise goes through `committing` (write-failure.ts): a commit that fails (a full
 * disk) fails its writes with the engine's error, and the process stays up.
 * @internal Left out of the declarations with the LmdbChangeLog it exposes (change-log-store.ts).
 */
export class LmdbStorage implements Storage {
  /** The data directory, as messages name it. */
  readonly #path: string
  readonly #root: RootDatabase
  readonly #catalog: Database<unknown, string>
  readonly #collections = new Map<string, LmdbCollection>()
  /** One process per directory (directory-lock.ts), taken before LMDB opens it. */
  readonly #lock: DirectoryLock
  /** The change log, a named database of the same environment (storage/change-log-store.ts). */
  readonly changeLog: LmdbChangeLog
  readonly commits = new CommitClock()

  constructor(path: string) {
    this.#path = resolve(path)
    this.#lock = DirectoryLock.acquire(path)
    try {
      this.#root = openEnvironment(this.#path)
      this.#catalog = this.#root.openDB<unknown, string>('catalog', {})
      this.changeLog = new LmdbChangeLog(this.#root)
    } catch (error) {
      this.#lock.release()
      throw error
    }
  }

  collection(name: string): CollectionStorage {
    let found = this.#collections.get(name)
    if (!found) {
      const db = this.#root.openDB<Buffer, string>(`c:${name}`, { encoding: 'binary' })
      const entries = this.#root.openDB<string, Buffer>(`x:${name}`, { encoding: 'string', keyEncoder: RAW_KEYS } as never)
      found = new LmdbCollection(this.#root, db, entries, this.#catalog, name, this.#path, this.changeLog)
      this.#collections.set(name, found)
    }
    return found
  }

  readIndexes(collection: string): StoredIndex[] {
    return (this.#catalog.get(`indexes:${collection}`) as StoredIndex[] | undefined) ?? []
  }

  async writeIndexes(collection: string, indexes: StoredIndex[]): Promise<void> {
    await Promise.all([this.#committing(this.#catalog.put(`indexes:${collection}`, indexes)), this.#register(collection)])
    await this.#flushed()
  }

  readOptions(collection: string): Record<string, unknown> {
    return (this.#catalog.get(`options:${collection}`) as Record<string, unknown> | undefined) ?? {}
  }

  async writeOptions(collection: string, options: Record<string, unknown>): Promise<void> {
    await this.#committing(this.#catalog.put(`options:${collection}`, options))
    await this.#flushed()
  }

  listCollections(): string[] {
    return [...this.#catalog.getKeys({ start: 'collection:', end: 'collection;' })].map((key) => key.slice('collection:'.length))
  }

  async dropCollection(name: string): Promise<void> {
    await (this.collection(name) as LmdbCollection).clear()
    await Promise.all(['collection', 'indexes', 'options'].map((kind) => this.#committing(this.#catalog.remove(`${kind}:${name}`))))
    await this.#flushed()
  }

  async dropAll(): Promise<void> {
    const names = [...this.#catalog.getKeys({ start: 'collection:', end: 'collection;' })]
    for (const key of names) {
      const name = key.slice('collection:'.length)
      await (this.collection(name) as LmdbCollection).clear()
    }
    await this.#committing(this.#catalog.clearAsync())
    await this.#flushed()
  }

  async close(): Promise<void> {
    try {
      await this.#flushed()
      await this.#root.close()
    } finally {
      this.#lock.release()
    }
  }

  #committing<T>(write: PromiseLike<T>): Promise<T> {
    return committing(this.#root, write, this.#path)
  }

  /**
   * Waits for the writes made so far to be on disk. lmdb-js's `flushed` rejects while its last
   * write is one whose commit failed: that failure was its writer's answer, and waiting is not
   * failing again (nor is closing the environment after it).
   */
  async #flushed(): Promise<void> {
    await Promise.resolve(this.#root.flushed).catch(() => undefined)
  }

  /** Remembers that a collection exists, so dropAll finds it after a restart. */
  async #register(name: string): Promise<void> {
    const key = `collection:${name}`
    if (this.#catalog.get(key) === undefined) await this.#committing(this.#catalog.put(key, true))
  }
}

/**
 * Index entry keys as raw bytes, what lmdb-js's `keyEncoding: 'binary'` stores, but read out into
 * pooled memory (pooled-copy.ts): an index walk reads one key per document it yields. A write names
 * its entry (an IndexEntry), whose key is written in place (`writeEntryKey`): nothing is allocated.
 */
const RAW_KEYS = {
  writeKey: (key: Uint8Array | IndexEntry, target: Buffer, start: number): number => {
    if (!(key instanceof Uint8Array)) return writeEntryKey(key, target, start)
    target.set(key, start)
    return start + key.length
  },
  readKey: (source: Uint8Array, start: number, end: number): Buffer => pooledCopy(source.subarray(start, end)),
}

class LmdbCollection implements CollectionStorage {
  readonly #root: RootDatabase
  readonly #db: Database<Buffer, string>
  readonly #entries: Database<string, Buffer>
  readonly #catalog: Database<unknown, string>
  readonly #name: string
  /** The data directory, as a failed commit's message names it. */
  readonly #directory: string
  #registered = false
  /**
   * The same database, read through a decoder that hands each value, in lmdb-js's shared read
   * buffer (no copy), to `#visitor`: the visits of `visit`. Copying every value out of that
   * buffer is most of what a scan costs (a Buffer per document), and a sort or a filter looks at
   * a field or two of most documents and keeps few of them.
   */
  readonly #inPlace: Database<unknown, string>
  #visitor: ((bytes: Uint8Array) => unknown) | undefined
  readonly #changeLog: LmdbChangeLog
  /** `version()`: moves on each write applied and each commit; `#uncommitted` counts writes not committed yet. */
  #version = 0
  #uncommitted = 0

  constructor(root: RootDatabase, db: Database<Buffer, string>, entries: Database<string, Buffer>, catalog: Database<unknown, string>, name: string, directory: string, changeLog: LmdbChangeLog) {
    this.#root = root
    this.#changeLog = changeLog
    this.#directory = directory
    this.#db = db
    const decode = (bytes: Uint8Array, size: number) => this.#visitor!(bytes.length === size ? bytes : bytes.subarray(0, size))
    // Only read through (a decoder without `needsStableBuffer` gets the shared buffer); writes go through #db.
    this.#inPlace = root.openDB<unknown, string>(`c:${name}`, { encoder: { encode: (value: unknown) => value, decode } } as never)
    this.#entries = entries
    this.#catalog = catalog
    this.#name = name
  }

  get(key: string): Uint8Array | undefined {
    // lmdb-js's own copy (`get`) is an ArrayBuffer per call; its shared read buffer is copied into pooled memory instead.
    const shared = this.#db.getBinaryFast(key)
    return shared === undefined ? undefined : pooledCopy(shared)
  }

  version(): number | undefined {
    return this.#uncommitted === 0 ? this.#version : undefined
  }

  /** Around every change of the documents: `version()` is undefined until `done` (its commit) settles. */
  #changing(): () => void {
    this.#version++
    this.#uncommitted++
    return () => {
      this.#version++
      this.#uncommitted--
    }
  }

  /** Inside a write transaction (a `transact` body), operations apply at once and must not wait for a commit. */
  #inTransaction(): boolean {
    return Boolean((this.#root as unknown as { env?: { writeTxn?: unknown } }).env?.writeTxn)
  }

  /** Runs `apply` in the open write transaction, or in a new one whose commit it awaits. */
  async #atomically(apply: () => void): Promise<void> {
    if (this.#inTransaction()) apply()
    else await committing(this.#root, this.#root.transaction(apply), this.#directory)
  }

  transact<T>(body: () => Promise<T>, more?: () => boolean): { applied: Promise<void>, durable: Promise<T> } {
    let finish = () => {}
    const applied = new Promise<void>((resolve) => {
      finish = resolve
    })
    const run = async (): Promise<{ value: T } | { error: unknown }> => {
      try {
        return { value: await body() }
      } catch (error) {
        // Not thrown to lmdb-js: what the body wrote before failing commits, as on the server.
        return { error }
      } finally {
        finish()
        // Let the writes queued behind this one join the transaction before it commits.
        if (more?.()) await new Promise((resolve) => setImmediate(resolve))
      }
    }
    let outcome: Promise<{ value: T } | { error: unknown }>
    const committed = this.#changing()
    try {
      outcome = committing(this.#root, this.#root.transaction(run) as unknown as Promise<{ value: T } | { error: unknown }>, this.#directory)
    } catch (error) {
      committed()
      finish()
      return { applied, durable: Promise.reject(error) }
    }
    outcome.then(committed, () => {
      // The catalog entry a body wrote (`write`'s register) was not stored with it.
      this.#registered = false
      committed()
    })
    const durable = outcome.then((result) => {
      if ('error' in result) throw result.error
      return result.value
    })
    return { applied, durable }
  }

  /** One LMDB transaction: the documents, their index entries, and the definitions when given. */
  async write(batch: WriteBatch): Promise<void> {
    const register = !this.#registered && ((batch.puts?.length ?? 0) > 0 || batch.indexes !== undefined)
    // Inside `transact`, the transaction's commit settles the version; here, this write's own.
    const committed = this.#changing()
    await this.#atomically(() => {
      for (const key of batch.removes ?? []) this.#db.remove(key)
      for (const [key, bytes] of batch.puts ?? []) this.#db.put(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      for (const entry of batch.removeEntries ?? []) this.#entries.remove(entry as never)
      for (const entry of batch.addEntries ?? []) this.#entries.put(entry as never, entry.docKey)
      if (batch.indexes) this.#catalog.put(`indexes:${this.#name}`, batch.indexes)
      if (batch.changes) this.#changeLog.append(batch.changes)
      // Remembers that the collection exists, so dropAll finds it after a restart.
      if (register && this.#catalog.get(`collection:${this.#name}`) === undefined) this.#catalog.put(`collection:${this.#name}`, true)
    }).finally(committed)
    if (register) this.#registered = true
  }

  flushed(): Promise<void> {
    return Promise.resolve(this.#root.flushed).then(() => undefined)
  }

  /** Like `scan`: batches read in short read transactions, continuing after the last key. */
  *indexRange(index: string, range: IndexRange): Generator<IndexHit, undefined> {
    const prefix = Buffer.from(`${index}\0`)
    const low = Buffer.concat([prefix, range.start ?? new Uint8Array()])
    const high = range.end ? Buffer.concat([prefix, range.end]) : Buffer.concat([prefix.subarray(0, prefix.length - 1), Buffer.from([1])])
    let after: Buffer | undefined
    for (let limit = FIRST_BATCH; ; limit = nextBatch(limit)) {
      const options = range.reverse
        ? { start: after ?? high, end: low, reverse: true, exclusiveStart: after !== undefined, limit }
        : { start: after ?? low, end: high, exclusiveStart: after !== undefined, limit }
      let count = 0
      const batch: [Buffer, string][] = []
      for (const { key, value } of this.#entries.getRange(options)) {
        batch.push([key, value])
        count++
      }
      for (const [key, docKey] of batch) yield [key.subarray(prefix.length), docKey]
      if (count < limit) return undefined
      after = batch[batch.length - 1]![0]
    }
  }

  /** Like `indexRange`, over the documents' own keys: batches read in short read transactions. */
  *keyRange(range: KeyRange): Generator<string, undefined> {
    let after: string | undefined
    for (let limit = FIRST_BATCH; ; limit = nextBatch(limit)) {
      // Forwards lmdb-js walks [start, end). Backwards it starts at (or below) `start` and stops
      // before `end`, both exclusive here: the walk goes down from `range.end`, and stops itself at
      // the first key below `range.start`, which is inclusive.
      const from = after ?? (range.reverse ? range.end : range.start)
      const options = {
        ...(from === undefined ? {} : { start: from }),
        ...(range.reverse || range.end === undefined ? {} : { end: range.end }),
        reverse: range.reverse === true,
        // Backwards, `range.end` itself is outside the range; a walk from the very last key has no start.
        exclusiveStart: after !== undefined || (range.reverse === true && from !== undefined),
        limit,
      }
      const batch = [...this.#db.getKeys(options)] as string[]
      for (const key of batch) {
        if (range.reverse && range.start !== undefined && key < range.start) return undefined
        yield key
      }
      if (batch.length < limit) return undefined
      after = batch[batch.length - 1]
    }
  }

  async clearIndex(index: string): Promise<void> {
    const prefix = Buffer.from(`${index}\0`)
    const end = Buffer.concat([prefix.subarray(0, prefix.length - 1), Buffer.from([1])])
    await this.#atomically(() => {
      for (const key of this.#entries.getKeys({ start: prefix, end })) this.#entries.remove(key)
    })
  }

  /**
   * The visits of `visit` (below) that copy each document: the same batches, in short read
   * transactions. A lazy `getRange()` would hold its read transaction for as long as the walk
   * lives: across a slow client's backpressure or between two getMores, so a few hundred stalled
   * readers would take every LMDB reader slot (MDB_READERS_FULL) and pin old pages. Each batch is
   * a consistent snapshot; a long walk is not (see docs/engine.md).
   */
  *scan(): Generator<Uint8Array, undefined> {
    for (const [, bytes] of this.visit(pooledCopy)) yield bytes
    return undefined
  }

  /** Like `scan`, the visits of one batch within one short read transaction; what they keep is yielded after it. */
  *visit<T>(visit: (bytes: Uint8Array) => T | undefined): Generator<[string, T], undefined> {
    let after: string | undefined
    for (let limit = FIRST_BATCH; ; limit = nextBatch(limit)) {
      const { kept, last, more } = this.#visitBatch(after, limit, visit)
      for (const value of kept) yield value
      if (!more) return undefined
      after = last
    }
  }

  #visitBatch<T>(after: string | undefined, limit: number, visit: (bytes: Uint8Array) => T | undefined): { kept: [string, T][], last: string | undefined, more: boolean } {
    const range = after === undefined ? { limit } : { start: after, exclusiveStart: true, limit }
    const kept: [string, T][] = []
    let count = 0
    let bytes = 0
    let last: string | undefined
    // Batches are read synchronously, but a visit might itself walk another collection.
    const outer = this.#visitor
    this.#visitor = (view) => {
      bytes += view.length
      return visit(view)
    }
    try {
      for (const { key, value } of this.#inPlace.getRange(range)) {
        count++
        last = key
        if (value !== undefined) kept.push([key, value as T])
        if (bytes >= SCAN_BATCH_BYTES) return { kept, last, more: true }
      }
    } finally {
      this.#visitor = outer
    }
    return { kept, last, more: count === limit }
  }

  async clear(): Promise<void> {
    const committed = this.#changing()
    try {
      await committing(this.#root, this.#db.clearAsync(), this.#directory)
      await committing(this.#root, this.#entries.clearAsync(), this.#directory)
    } finally {
      committed()
    }
    this.#registered = false
  }
}

/**
 * An index entry's key in the collection's entries database: the index name and a 0 byte, then the
 * entry key of sorted-entries.ts (`entryKeyOf`: the index key, then the document's storage key),
 * written into lmdb-js's key buffer. Answers where the key ends.
 */
function writeEntryKey(entry: IndexEntry, target: Buffer, start: number): number {
  let at = start + target.write(entry.index, start, 'utf8')
  target[at++] = 0
  target.set(entry.key, at)
  at += entry.key.length
  return at + target.write(entry.docKey, at, 'utf8')
}
