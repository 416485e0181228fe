import { decodeDocument, encodeDocument } from '../bson/bson-codec.js'
import type { StoredDocument } from '../bson/stored-document.js'
import { toValueKey } from '../bson/value-key.js'
import { type ChangeOperation, type DefinitionOperation, encodeChange, encodeDefinitionChange } from '../changes/change-entry.js'
import { type ChangeFeed, type ChangeSource, changeFeedOf, keepsImages } from '../changes/change-feed.js'
import type { Collation } from '../collation/collation.js'
import { type Document, isPlainObject } from '../document.js'
import { closedError, duplicateKeyError } from '../errors.js'
import { ID_INDEX, IndexCatalog } from '../indexes/index-catalog.js'
import { Deadline } from '../pace/deadline.js'
import { compileFilter, filterCollation } from '../query/compile-filter.js'
import { pointKeysOf } from '../query/point-keys.js'
import { isSimpleCollation, type Plan, type PlanOptions, planIdOrder, planQuery } from '../query/query-planner.js'
import { scanDocuments } from '../read/scan-documents.js'
import { SortedCollector, type SortSpec } from '../sort/sort-documents.js'
import type { CommitClock } from '../storage/commit-clock.js'
import type { CollectionStorage, Storage } from '../storage/storage.js'
import { isCommitFailure } from '../storage/write-failure.js'
import { WriteQueue } from './write-queue.js'

/** A stored document with its storage key, and its stored bytes when the read that found it had them at hand. */
export type Found = [key: string, doc: Document, bytes?: Uint8Array]

/** Where a collection lives: its database, its name, and the name its storage goes by. */
export interface Namespace {
  db: string
  name: string
  storageName: string
}

/**
 * The primitives every write of one collection is built from: the write queue, the indexes,
 * and storage batches that change documents and their index entries in one transaction. The
 * driver-shaped methods (embedded-collection.ts) and the multi-document writes
 * (modify-documents.ts) compose them.
 */
export class CollectionCore {
  readonly ns: string
  readonly queue = new WriteQueue()
  readonly storage: CollectionStorage
  readonly indexes: IndexCatalog
  readonly #isOpen: () => boolean
  /** A build of indexes defined before their entries were stored, once queued. */
  #building: Promise<void> | undefined
  /** The change log's feed (absent in a transaction's overlay, which keeps no log), and this collection's name in it. */
  readonly #feed: ChangeFeed | undefined
  readonly #storageName: string
  readonly #namespace: Namespace
  /** When documents last changed (absent in a transaction's overlay, whose writes are not committed yet). */
  readonly #commits: CommitClock | undefined
  /** A collection's options (`collMod`'s), by storage name. */
  readonly #options: (storageName: string) => Record<string, unknown>
  /** The storage keys the running write task changed: stamped on the clock once durable. */
  #written: string[] | undefined
  /** Settles once every write task queued so far is durable and stamped. */
  #settled: Promise<void> = Promise.resolve()

  constructor(storage: Storage, namespace: Namespace, isOpen: () => boolean) {
    this.ns = `${namespace.db}.${namespace.name}`
    this.#feed = changeFeedOf(storage)
    this.#commits = storage.commits
    this.#options = (storageName) => storage.readOptions(storageName)
    this.#storageName = namespace.storageName
    this.#namespace = namespace
    this.storage = storage.collection(namespace.storageName)
    this.indexes = new IndexCatalog(storage, namespace.storageName, this.ns)
    this.#isOpen = isOpen
  }

  /**
   * Runs `task` in the write queue, after any pending index build, inside a storage transaction
   * shared with the writes queued behind it (group commit, see CollectionStorage.transact): the
   * next task starts once this one's writes are applied and visible; the caller's promise settles
   * once they are committed and on disk, so an acknowledged write is durable.
   */
  write<T>(task: () => Promise<T>): Promise<T> {
    try {
      this.assertOpen()
    } catch (error) {
      return Promise.reject(error)
    }
    this.#scheduleBuild()
    return this.queue.runApplied(() => {
      try {
        this.assertOpen()
      } catch (error) {
        return { applied: Promise.resolve(), durable: Promise.reject(error) }
      }
      const written: string[] = []
      const { applied, durable } = this.storage.transact(async () => {
        if (this.indexes.needsBuild) await this.indexes.build(() => this.all())
        this.#written = written
        try {
          return await task()
        } finally {
          this.#written = undefined
        }
      }, () => this.queue.waiting)
      // Change streams read the log once the write is durable (also a failed one: what it wrote before failing commits).
      const told = durable.finally(() => {
        this.#commits?.committed(this.#storageName, written)
        this.#feed?.committed()
      })
      this.#settled = told.then(
        () => undefined,
        () => undefined
      )
      return { applied, durable: told.catch((error: unknown) => this.#uncommitted(error)) }
    })
  }

  /**
   * Settles once the writes queued before the call are durable (and stamped on the commit clock).
   * A transaction that took the write queue waits for it before reading: on disk, a write the queue
   * let go once applied may not be committed yet, and reads outside its storage transaction would
   * still see the version before it.
   */
  settled(): Promise<void> {
    return this.#settled
  }

  /**
   * A transaction whose commit failed (a full disk) stored nothing, but its bodies already noted in
   * memory what they wrote (an index created, a multikey flag): forgotten, and read again from disk.
   */
  #uncommitted(error: unknown): never {
    if (isCommitFailure(error)) this.indexes.clear()
    throw error
  }

  /**
   * Drops an index in the write queue without building pending indexes first: dropping is how a
   * collection whose unique index fails to build (duplicates on disk) gets repaired.
   */
  dropIndex(name: string): Promise<boolean> {
    this.assertOpen()
    return this.queue.run(() => {
      this.assertOpen()
      return this.indexes.drop(name)
    })
  }

  /** Indexes defined before entries were stored get built in the queue, without waiting for a write. */
  #scheduleBuild(): void {
    if (this.#building || !this.indexes.needsBuild) return
    this.#building = this.queue
      .run(() => this.indexes.build(() => this.all()))
      .catch(() => undefined)
      .finally(() => {
        this.#building = undefined
      })
  }

  assertOpen(): void {
    if (!this.#isOpen()) throw closedError()
  }

  /**
   * The candidates of a read: the documents an `_id` pins (point-keys.ts), or an index's
   * (query-planner.ts), or undefined for a scan. Index entries change in the same transaction
   * as their documents, so a read never sees one without the other.
   */
  plan(filter: Document, options: PlanOptions = {}): Plan | undefined {
    this.indexes.assertBuildable(() => this.all())
    const simple = isSimpleCollation(options.collation)
    const ids = simple ? pointKeysOf(filter) : undefined
    if (ids) return { index: ID_INDEX, keys: ids, sorted: false }
    this.#scheduleBuild()
    // A secondary index, whether it serves the sort or only narrows, wins over a walk of `_id`s.
    return planQuery(filter, this.indexes.usable(), this.storage, options) ?? planIdOrder(filter, this.storage, options)
  }

  /**
   * `findOne({ _id: <ObjectId> })` without options, the read of GET one (and of a write by id): the
   * document under that key as stored, or null; undefined when `filter` is not of that shape (the
   * caller then reads through a cursor). The stored key is the canonical key of the document's
   * `_id`, and an ObjectId equals only itself (no numeric or collation equivalence), so the key alone
   * decides the match: no filter to compile, no plan, no cursor. The wire server sends the bytes on
   * as they are.
   */
  pointBytes(filter: Document): Uint8Array | null | undefined {
    const id = soleObjectIdOf(filter)
    if (id === undefined) return undefined
    this.indexes.assertBuildable(() => this.all())
    return this.storage.get(toValueKey(id)) ?? null
  }

  /** The candidate keys of `filter` (see `plan`), unordered. */
  pointKeys(filter: Document, options: PlanOptions = {}): Iterable<string> | undefined {
    return this.plan(filter, { collation: options.collation })?.keys
  }

  /**
   * The first match in scan order, or in `sort` order when one is given (strings compared under
   * `collation`, which also keeps the planner off indexes: their order and equality are binary).
   */
  first(filter: Document, maxTimeMS: number | undefined, sort?: SortSpec, collation?: Collation): Found | undefined {
    if (maxTimeMS === undefined && sort === undefined && collation === undefined) {
      const bytes = this.pointBytes(filter)
      if (bytes !== undefined) return bytes === null ? undefined : [toValueKey(soleObjectIdOf(filter)), decodeDocument(bytes), bytes]
    }
    const matches = compileFilter(filter, filterCollation(filter, collation))
    const sorting = sort && Object.keys(sort).length > 0 ? sort : undefined
    const plan = this.plan(filter, { sort: sorting, collation })
    const scan = scanDocuments(this.storage, plan?.keys, matches, startDeadline(maxTimeMS))
    let value: Document | undefined
    if (sorting && plan?.sorted !== true) {
      const collector = new SortedCollector(sorting, 1, { order: collation?.compareValues })
      for (const doc of scan) collector.add(doc)
      value = collector.result()[0]
    } else {
      value = scan.next().value
      scan.return(undefined)
    }
    return value ? [toValueKey(value['_id']), value] : undefined
  }

  *all(): Generator<[key: string, doc: Document]> {
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
  insert(stored: Document): Promise<void> {
    return this.insertStored({ bytes: encodeDocument(stored), doc: stored })
  }

  /** `insert`, of a document already encoded (stored-document.ts): its bytes are stored as they are. */
  async insertStored({ bytes, doc: stored }: StoredDocument): Promise<void> {
    const key = toValueKey(stored['_id'])
    if (this.storage.get(key) !== undefined) throw duplicateKeyError(this.ns, ID_INDEX, { _id: stored['_id'] })
    const changes = this.indexes.changesFor(key, undefined, stored)
    this.#written?.push(key)
    await this.storage.write({ puts: [[key, bytes]], ...changes, ...this.#logged('insert', bytes, undefined) })
    this.indexes.applied(changes)
  }

  /**
   * Stores `after` in place of `before`; false when the bytes are identical (a no-op update).
   * `stored`: the bytes `before` was read from, when the caller holds them (else read again).
   */
  async commit(key: string, before: Document, after: Document, operation: 'update' | 'replace' = 'update', stored = this.storage.get(key)): Promise<boolean> {
    const bytes = encodeDocument(after)
    if (Buffer.compare(bytes, stored ?? new Uint8Array()) === 0) return false
    const changes = this.indexes.changesFor(key, before, after)
    this.#written?.push(key)
    await this.storage.write({ puts: [[key, bytes]], ...changes, ...this.#logged(operation, bytes, stored) })
    this.indexes.applied(changes)
    return true
  }

  async remove(found: Found[]): Promise<number> {
    const removeEntries = found.flatMap(([key, doc]) => this.indexes.changesFor(key, doc, undefined).removeEntries)
    const changes = this.#feed ? found.map(([key]) => encodeChange('delete', this.#storageName, undefined, this.storage.get(key))) : undefined
    for (const [key] of found) this.#written?.push(key)
    await this.storage.write({ removes: found.map(([key]) => key), removeEntries, ...(changes ? { changes } : {}) })
    return found.length
  }

  /** Where a change stream of this collection reads (`watch()`); undefined inside a transaction. */
  changeSource(): ChangeSource | undefined {
    const { db, name: coll } = this.#namespace
    const options = this.#options
    return this.#feed && {
      feed: this.#feed,
      scope: { kind: 'collection', storageName: this.#storageName },
      namespaceOf: () => ({ db, coll }),
      keepsImages: (storageName) => keepsImages(options(storageName)),
    }
  }

  /**
   * Logs a change of this collection's definition (or, with `subject`, of its database's: a
   * dropDatabase) for change streams (changes/change-document.ts). Inside a write task it commits
   * with the task's writes; alone, in its own storage transaction, after the change it tells
   * (a drop, a rename). In a transaction the entry waits in its overlay for the commit.
   */
  async logDefinition(operation: DefinitionOperation, fields: { t?: string, d?: Document } = {}, subject = this.#storageName): Promise<void> {
    await this.storage.write({ changes: [encodeDefinitionChange(operation, subject, fields)] })
    this.#feed?.committed()
  }

  /** The change log entry of a write, when the storage keeps a log. */
  #logged(operation: ChangeOperation, after: Uint8Array | undefined, before: Uint8Array | undefined): { changes?: Uint8Array[] } {
    return this.#feed ? { changes: [encodeChange(operation, this.#storageName, after, before)] } : {}
  }

  /** Forgets in-memory index state after the collection was dropped underneath. */
  reset(): void {
    this.indexes.clear()
  }
}

/** The ObjectId of a filter that is `{ _id: id }` or `{ _id: { $eq: id } }` and nothing else. */
function soleObjectIdOf(filter: Document): unknown {
  let only: string | undefined
  for (const key in filter) {
    if (only !== undefined || !Object.hasOwn(filter, key)) return undefined
    only = key
  }
  if (only !== '_id') return undefined
  let value = filter['_id']
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
    if (keys.length !== 1 || keys[0] !== '$eq') return undefined
    value = value['$eq']
  }
  return (value as { _bsontype?: unknown } | null)?._bsontype === 'ObjectId' ? value : undefined
}

export function startDeadline(maxTimeMS: number | undefined): Deadline {
  const deadline = new Deadline(maxTimeMS)
  deadline.resume()
  return deadline
}
