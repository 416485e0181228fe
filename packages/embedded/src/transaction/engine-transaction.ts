import { changesOfBatch } from '../changes/batch-changes.js'
import { changeFeedOf } from '../changes/change-feed.js'
import type { CollectionCore } from '../collection/collection-core.js'
import { noSuchTransactionError, writeConflictError } from '../errors.js'
import type { Storage, WriteBatch } from '../storage/storage.js'
import { OverlayStorage, type PendingWrites } from './overlay-storage.js'

/** A transaction left open this long is aborted, as with mongod's default `transactionLifetimeLimitSeconds` (60). */
export const TRANSACTION_LIFETIME_MS = 60_000

/** A database handle, as the engine's `EmbeddedDb` is one: reached by name, handing out collections. */
interface DbLike<Db> {
  db(name: string): Db
  readonly databaseName: string
}

/** What a transaction needs from its engine (given by embedded-db.ts, which this module must not import). */
export interface TransactionHost<Db> {
  readonly storage: Storage
  /** The engine's default database, over another storage (the transaction's overlay). */
  makeDb(storage: Storage): Db
  /** The core of a collection of the engine, by its storage name (its write queue, its indexes). */
  coreOf(storageName: string): CollectionCore
  /** One transaction at a time holds collections: two could otherwise each wait for the other's. */
  readonly lock: TransactionLock
}

/**
 * One multi-document transaction of the engine: every write of it goes to an overlay
 * (overlay-storage.ts) that only its own operations read, and the commit applies them all in one
 * storage transaction: on disk, one LMDB commit (one fsync), so after a crash it is there whole or
 * not at all.
 *
 * Write conflicts follow MongoDB's rule: the transaction's snapshot is taken at its first operation,
 * and a write to a document whose change was committed after it fails with WriteConflict (112,
 * `TransientTransactionError`), aborting the transaction; `withTransaction` runs it again. What the
 * transaction read of that document before may be older than what it would overwrite, so letting
 * the write through would lose the other change.
 *
 * Its first write to a collection takes that collection's write queue until it ends, once the writes
 * before it are durable: writers outside it wait (readers do not, and see the data before it), so
 * nothing it wrote changes under it, and its commit can never conflict. Only one transaction holds
 * queues at a time (the engine's lock); another waits for it to end. One left open past its lifetime
 * is aborted, so a client that vanished mid-transaction cannot hold the collections for good.
 */
export class EngineTransaction<Db extends DbLike<Db>> {
  readonly txnNumber: number
  readonly #host: TransactionHost<Db>
  readonly #overlay: OverlayStorage
  readonly #root: Db
  #state: 'open' | 'committed' | 'aborted' = 'open'
  /** The write queues held, by storage name; the engine lock's release once taken. */
  readonly #held = new Map<string, () => void>()
  #unlock: (() => void) | undefined
  /** Acquisitions run one after another, even when operations of the transaction run at once. */
  #acquiring: Promise<void> = Promise.resolve()
  readonly #expiry: NodeJS.Timeout
  /** The commit clock's time at the transaction's first operation; undefined before it, and once it ended. */
  #snapshot: number | undefined

  constructor(host: TransactionHost<Db>, txnNumber: number, lifetimeMs = TRANSACTION_LIFETIME_MS) {
    this.txnNumber = txnNumber
    this.#host = host
    this.#overlay = new OverlayStorage(
      host.storage,
      (name) => this.#acquire(name),
      (name, key) => this.#refuseConflict(name, key)
    )
    this.#root = host.makeDb(this.#overlay)
    this.#expiry = setTimeout(() => void this.abort(), lifetimeMs)
    this.#expiry.unref()
  }

  get state(): 'open' | 'committed' | 'aborted' {
    return this.#state
  }

  /** The database `name` as this transaction sees it. */
  db(name: string): Db {
    this.assertOpen()
    this.#snapshot ??= this.#host.storage.commits?.open()
    return name === this.#root.databaseName ? this.#root : this.#root.db(name)
  }

  assertOpen(): void {
    if (this.#state !== 'open') throw noSuchTransactionError(this.txnNumber, this.#state === 'committed' ? 'has been committed' : 'has been aborted')
  }

  /** Applies every write of the transaction at once, durably; a second commit of a committed one is a no-op. */
  async commit(): Promise<void> {
    if (this.#state === 'committed') return
    this.assertOpen()
    clearTimeout(this.#expiry)
    // Operations still acquiring finish first: they run before the commit, or fail once it is done.
    await this.#acquiring
    try {
      await applyAtomically(this.#host, this.#overlay.pending())
      this.#state = 'committed'
    } catch (error) {
      this.#state = 'aborted'
      throw error
    } finally {
      this.#release()
    }
  }

  /** Drops every write of the transaction; nothing of it was ever stored. */
  async abort(): Promise<void> {
    if (this.#state !== 'open') return
    this.#state = 'aborted'
    clearTimeout(this.#expiry)
    await this.#acquiring.catch(() => undefined)
    this.#release()
  }

  #acquire(storageName: string): Promise<void> {
    const next = this.#acquiring.then(async () => {
      this.assertOpen()
      if (this.#held.has(storageName)) return
      this.#unlock ??= await this.#host.lock.acquire()
      const core = this.#host.coreOf(storageName)
      const release = await core.queue.hold()
      this.#held.set(storageName, release)
      // What the writes before it changed is then committed: its reads see it, and the clock knows it.
      await core.settled()
      // Aborted (expired) while waiting: what was just taken is given back by #release, already run.
      if (this.#state !== 'open') this.#release()
      this.assertOpen()
    })
    this.#acquiring = next.catch(() => undefined)
    return next
  }

  #release(): void {
    for (const release of this.#held.values()) release()
    this.#held.clear()
    this.#unlock?.()
    this.#unlock = undefined
    if (this.#snapshot !== undefined) this.#host.storage.commits?.close(this.#snapshot)
    this.#snapshot = undefined
  }

  /** A write to `key` changed and committed after the snapshot: the transaction is aborted, WriteConflict. */
  #refuseConflict(storageName: string, key: string): void {
    const commits = this.#host.storage.commits
    if (this.#snapshot === undefined || commits === undefined || !commits.changedSince(storageName, key, this.#snapshot)) return
    void this.abort()
    throw writeConflictError()
  }
}

/**
 * The pending batches of every collection in one storage transaction (in memory: applied at once,
 * with no await between them; on disk: one LMDB commit), then the definitions a write changed (a
 * multikey flag) made known to the collections' index catalogs.
 */
async function applyAtomically<Db>(host: TransactionHost<Db>, pending: PendingWrites[]): Promise<void> {
  const [first] = pending
  if (first === undefined) return
  const { storage } = host
  // The change log gets the net changes, in the same storage transaction (changes/batch-changes.ts),
  // after what the transaction defined (a collection, an index: logged as it was done).
  const feed = changeFeedOf(storage)
  const logged = (storageName: string, batch: WriteBatch) => (feed ? { ...batch, changes: [...(batch.changes ?? []), ...changesOfBatch(storage.collection(storageName), storageName, batch)] } : batch)
  const apply = () => Promise.all(pending.map(({ storageName, batch }) => storage.collection(storageName).write(logged(storageName, batch)))).then(() => undefined)
  await storage.collection(first.storageName).transact(apply).durable
  for (const { storageName, batch } of pending) storage.commits?.committed(storageName, changedKeys(batch))
  feed?.committed()
  for (const { storageName, batch } of pending) {
    if (batch.indexes) host.coreOf(storageName).indexes.applied({ addEntries: [], removeEntries: [], indexes: batch.indexes })
  }
}

/** The storage keys of the documents a batch puts or removes. */
function* changedKeys(batch: WriteBatch): Generator<string> {
  for (const [key] of batch.puts ?? []) yield key
  yield* batch.removes ?? []
}

/** A mutual exclusion lock: `acquire` resolves with the release once every earlier holder released. */
export class TransactionLock {
  #tail: Promise<void> = Promise.resolve()

  acquire(): Promise<() => void> {
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const acquired = this.#tail.then(() => release)
    this.#tail = this.#tail.then(() => released)
    return acquired
  }
}
