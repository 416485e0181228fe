import type { Timestamp } from 'mongodb'
import { aggregateCursor } from './aggregate/aggregate-cursor.js'
import { aggregateDocuments } from './aggregate/aggregate-documents.js'
import { withLocalSessions } from './aggregate/local-sessions.js'
import type { OutputTarget } from './aggregate/output-target.js'
import { decodeDocument } from './bson/bson-codec.js'
import { type PromoteOptions, valueFormOf } from './bson/value-form.js'
import { collectionUuidOf } from './changes/change-document.js'
import { type ChangeSource, changeFeedOf, keepsImages } from './changes/change-feed.js'
import { type ChangeScope, namespaceOfStorage } from './changes/change-scope.js'
import { clusterTimeOf } from './changes/cluster-time.js'
import { toCollation } from './collation/collation.js'
import { checkCollectionName, checkWritableCollection } from './collection/collection-name.js'
import { moveCollection } from './collection/move-collection.js'
import { parseViewOptions, VIEWS_COLLECTION, ViewCatalog } from './collection/views.js'
import type { CollationOptions, Document } from './document.js'
import { EmbeddedCollection } from './embedded-collection.js'
import { badValueError, closedError, commandNotSupportedOnViewError, illegalOperationError, invalidArgumentError, namespaceExistsError, namespaceNotFoundError, typeMismatchError } from './errors.js'
import { ID_INDEX } from './indexes/index-catalog.js'
import { configureFailPoint, type FailPointMode, type FailPointName } from './pace/fail-points.js'
import { compileFilter } from './query/compile-filter.js'
import { resolveLet } from './query/let-variables.js'
import { EmbeddedCursor } from './read/cursor.js'
import { DEFAULT_READS, type ReadSettings } from './read-settings.js'
import type { Storage } from './storage/storage.js'
import { EmbeddedClient } from './transaction/embedded-session.js'
import { TransactionLock } from './transaction/engine-transaction.js'
import { EmbeddedChangeStream, type WatchOptions } from './watch/change-stream.js'

/** What every database of one engine shares: the storage, and whether it is still open. */
interface Engine {
  storage: Storage
  open: boolean
  /** The database `openEmbedded()` returns; its collections keep their plain storage names. */
  defaultName: string
  databases: Map<string, EmbeddedDb>
  reads: ReadSettings
  /** `db.client`, made on first use. */
  client?: EmbeddedClient<EmbeddedDb>
}

/** One entry of `listCollections`, as the server describes a plain collection (`nameOnly`: name and type). */
export type CollectionInfo = {
  name: string
  type: 'collection' | 'view'
  options?: Document
  info?: { readOnly: boolean }
  idIndex?: { v: number, key: { _id: 1 }, name: string }
}

/**
 * The embedded engine's `Db`: hands out one `EmbeddedCollection` per name (the same object on
 * every call, so its write queue is shared by all callers) over one storage backend.
 *
 * One engine holds several databases, like a server (`db(name)`, as `MongoClient.db`). The
 * default database's collections are stored under their own name; another database's under
 * `<db>$<collection>`, which no collection name can collide with (`$` is refused in names).
 */
export class EmbeddedDb {
  readonly databaseName: string
  readonly #engine: Engine
  readonly #collections = new Map<string, EmbeddedCollection>()
  readonly #views: ViewCatalog

  constructor(storage: Storage, databaseName: string, engine?: Engine, reads: ReadSettings = DEFAULT_READS) {
    this.databaseName = databaseName
    this.#engine = engine ?? { storage, open: true, defaultName: databaseName, databases: new Map(), reads }
    this.#engine.databases.set(databaseName, this)
    this.#views = new ViewCatalog(databaseName, () => this.#engine.storage.collection(this.#storageName(VIEWS_COLLECTION)))
  }

  /**
   * What the driver's `db.client` is: `client.startSession()` starts a session whose transactions
   * (`session.withTransaction(fn)`, `{ session }` on each operation) apply all their writes at once
   * or none (transaction/engine-transaction.ts).
   */
  get client(): EmbeddedClient<EmbeddedDb> {
    const engine = this.#engine
    engine.client ??= new EmbeddedClient<EmbeddedDb>(
      {
        storage: engine.storage,
        makeDb: (storage) => new EmbeddedDb(storage, engine.defaultName, undefined, engine.reads),
        coreOf: (storageName) => this.#coreOf(storageName),
        lock: new TransactionLock(),
      },
      (pipeline, options) => new EmbeddedChangeStream(this.#changeSource({ kind: 'cluster' }), pipeline, options)
    )
    return engine.client
  }

  /** The core of a collection of this engine, by its storage name (`<collection>` or `<db>$<collection>`). */
  #coreOf(storageName: string) {
    const cut = storageName.indexOf('$')
    const home = this.#engine.databases.get(this.#engine.defaultName) ?? this
    const owner = cut < 0 ? home : home.db(storageName.slice(0, cut))
    return EmbeddedCollection.coreOf(owner.collection(cut < 0 ? storageName : storageName.slice(cut + 1)))
  }

  /** Another database of the same engine (created on first write, like on a server). */
  db(name: string): EmbeddedDb {
    if (!this.#engine.open) throw closedError()
    if (typeof name !== 'string' || name === '' || name.length > 63 || /[/\\. "$*<>:|?\0]/.test(name)) {
      throw invalidArgumentError(`Invalid database name: ${JSON.stringify(name)}`)
    }
    return this.#engine.databases.get(name) ?? new EmbeddedDb(this.#engine.storage, name, this.#engine)
  }

  collection(name: string): EmbeddedCollection {
    if (!this.#engine.open) throw closedError()
    checkCollectionName(this.databaseName, name)
    let found = this.#collections.get(name)
    if (!found) {
      const namespace = { db: this.databaseName, name, storageName: this.#storageName(name) }
      found = new EmbeddedCollection(
        this.#engine.storage,
        namespace,
        () => this.#engine.open,
        (other) => this.#readAll(other),
        (db, coll) => this.#outputTarget(db, coll),
        { definition: () => this.#views.get(name), source: (viewOn) => this.collection(viewOn) },
        this.#engine.reads,
      )
      this.#collections.set(name, found)
    }
    return found
  }

  /** Names of the collections of this database that exist (written to, or with indexes), and of its views. */
  listCollectionNames(): string[] {
    if (!this.#engine.open) throw closedError()
    const prefix = this.#isDefault() ? '' : `${this.databaseName}$`
    const stored = this.#engine.storage
      .listCollections()
      .filter((name) => (prefix === '' ? !name.includes('$') : name.startsWith(prefix)))
      .map((name) => name.slice(prefix.length))
    return [...stored, ...this.#views.names()]
  }

  /**
   * The collections of this database whose description matches `filter` (a query on the
   * `CollectionInfo` fields, e.g. `{ name: /^log/ }`), by name, as the driver's
   * `db.listCollections(filter, { nameOnly })`; read when the cursor is first read.
   */
  listCollections(filter: Document = {}, options: { nameOnly?: boolean } = {}): EmbeddedCursor {
    if (!this.#engine.open) throw closedError()
    const list = () => this.listCollectionNames().sort()
    const views = this.#views
    return new EmbeddedCursor(function* (): Generator<Document, undefined> {
      const matches = compileFilter(filter)
      for (const name of list()) {
        const view = views.get(name)
        let info: CollectionInfo
        if (options.nameOnly) info = { name, type: view ? 'view' : 'collection' }
        else if (view) info = { name, type: 'view', options: { viewOn: view.viewOn, pipeline: view.pipeline }, info: { readOnly: true } }
        else info = { name, type: 'collection', options: {}, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: ID_INDEX } }
        if (matches(info)) yield info
      }
      return undefined
    }, undefined)
  }

  /** Names of every database of the engine that holds at least one collection. */
  listDatabaseNames(): string[] {
    if (!this.#engine.open) throw closedError()
    const names = new Set<string>()
    for (const stored of this.#engine.storage.listCollections()) {
      const cut = stored.indexOf('$')
      names.add(cut < 0 ? this.#engine.defaultName : stored.slice(0, cut))
    }
    return [...names]
  }

  /**
   * Creates an empty collection (a no-op when it exists), or with `viewOn` (and `pipeline`) a
   * read-only view: its documents are the pipeline run over `viewOn`, a collection or a view; a
   * write to it fails with CommandNotSupportedOnView (166). A view's name must be free (48).
   */
  async createCollection(name: string, options: { viewOn?: string, pipeline?: Document[] } = {}): Promise<void> {
    const collection = this.collection(name)
    checkWritableCollection(name, `${this.databaseName}.${name}`)
    if (options.viewOn !== undefined || options.pipeline !== undefined) {
      const definition = parseViewOptions(options)
      if (this.listCollectionNames().includes(name)) throw namespaceExistsError(`${this.databaseName}.${name}`)
      await collection.queue.run(() => this.#views.create(name, definition))
      await EmbeddedCollection.coreOf(collection).logDefinition('create', { d: { viewOn: definition.viewOn, pipeline: definition.pipeline } })
      return
    }
    if (this.listCollectionNames().includes(name)) return
    await collection.queue.run(() => this.#engine.storage.writeIndexes(this.#storageName(name), []))
    await EmbeddedCollection.coreOf(collection).logDefinition('create', { d: { idIndex: { v: 2, key: { _id: 1 }, name: ID_INDEX } } })
  }

  /** Drops one collection with its indexes; false when it did not exist. Change streams see a `drop`. */
  async dropCollection(name: string): Promise<boolean> {
    const collection = this.collection(name)
    checkWritableCollection(name, `${this.databaseName}.${name}`)
    const core = EmbeddedCollection.coreOf(collection)
    if (this.#views.get(name)) {
      const dropped = await collection.queue.run(() => this.#views.drop(name))
      if (dropped) await core.logDefinition('drop')
      return dropped
    }
    const existed = this.listCollectionNames().includes(name)
    const release = await collection.queue.hold()
    try {
      await this.#engine.storage.dropCollection(this.#storageName(name))
      collection.reset()
    } finally {
      release()
    }
    if (existed) await core.logDefinition('drop')
    return existed
  }

  /** Deletes every collection and index of this database, its writers held off meanwhile. Change streams see each collection's `drop`, then `dropDatabase`. */
  async dropDatabase(): Promise<void> {
    if (!this.#engine.open) throw closedError()
    const names = this.listCollectionNames()
    for (const name of names) this.collection(name)
    const collections = [...this.#collections.values()]
    const releases = await Promise.all(collections.map((c) => c.queue.hold()))
    try {
      for (const name of this.listCollectionNames()) await this.#engine.storage.dropCollection(this.#storageName(name))
      for (const collection of collections) collection.reset()
      this.#views.clear()
    } finally {
      for (const release of releases) release()
    }
    if (names.length === 0) return
    for (const name of names) await EmbeddedCollection.coreOf(this.collection(name)).logDefinition('drop')
    await EmbeddedCollection.coreOf(this.collection(VIEWS_COLLECTION)).logDefinition('dropDatabase', {}, this.databaseName)
  }

  /**
   * Renames a collection of this database, as the driver's `db.renameCollection()`: its documents,
   * indexes and options go to `to` (collection/move-collection.ts: copied, so it takes time with the
   * collection's size). A missing collection is NamespaceNotFound (26), an existing `to`
   * NamespaceExists (48) unless `dropTarget` drops it first; a view cannot be renamed (166). Change
   * streams see the `rename` (and the dropped target's `drop`).
   */
  async renameCollection(from: string, to: string, options: { dropTarget?: boolean } = {}): Promise<void> {
    const source = this.collection(from)
    const target = this.collection(to)
    checkWritableCollection(from, `${this.databaseName}.${from}`)
    checkWritableCollection(to, `${this.databaseName}.${to}`)
    if (this.#views.get(from) || this.#views.get(to)) throw commandNotSupportedOnViewError(`${this.databaseName}.${this.#views.get(from) ? from : to}`)
    const names = this.listCollectionNames()
    if (!names.includes(from)) throw namespaceNotFoundError(`Source collection ${this.databaseName}.${from} does not exist`)
    if (from === to) throw illegalOperationError("Can't rename a collection to itself")
    const replaced = names.includes(to)
    if (replaced && options.dropTarget !== true) throw namespaceExistsError(`${this.databaseName}.${to}`)
    if (replaced) await this.dropCollection(to)
    const releases = [await source.queue.hold(), await target.queue.hold()]
    try {
      await moveCollection(this.#engine.storage, this.#storageName(from), this.#storageName(to))
      source.reset()
      target.reset()
    } finally {
      for (const release of releases) release()
    }
    const dropTarget = replaced ? { dropTarget: collectionUuidOf({ db: this.databaseName, coll: to }) } : {}
    await EmbeddedCollection.coreOf(source).logDefinition('rename', { t: `${this.databaseName}.${to}`, d: dropTarget })
  }

  /**
   * Changes a collection's options, as mongod's `collMod`: `changeStreamPreAndPostImages: { enabled }`
   * (turned off, the collection's change events have no documents before or after the change, as
   * MongoDB's without it; the engine keeps them by default). No option changes nothing but tells change
   * streams a `modify`. A missing collection is NamespaceNotFound (26); other options are refused (BadValue, 2).
   */
  async modifyCollection(name: string, options: { changeStreamPreAndPostImages?: { enabled: boolean } } = {}): Promise<void> {
    const collection = this.collection(name)
    checkWritableCollection(name, `${this.databaseName}.${name}`)
    const unknown = Object.keys(options).filter((option) => option !== 'changeStreamPreAndPostImages')
    if (unknown.length > 0) throw badValueError(`collMod option(s) ${unknown.join(', ')} not supported by the embedded engine (changeStreamPreAndPostImages only)`)
    const images = options.changeStreamPreAndPostImages
    if (images !== undefined && (typeof images !== 'object' || images === null || typeof images.enabled !== 'boolean')) {
      throw typeMismatchError('changeStreamPreAndPostImages must be { enabled: <boolean> }')
    }
    if (!this.listCollectionNames().includes(name) || this.#views.get(name)) throw namespaceNotFoundError(`ns does not exist: ${this.databaseName}.${name}`)
    const storageName = this.#storageName(name)
    await collection.queue.run(async () => {
      if (images !== undefined) await this.#engine.storage.writeOptions(storageName, { ...this.#engine.storage.readOptions(storageName), changeStreamPreAndPostImages: { enabled: images.enabled } })
    })
    await EmbeddedCollection.coreOf(collection).logDefinition('modify', { d: images === undefined ? {} : { changeStreamPreAndPostImages: { enabled: images.enabled } } })
  }

  /**
   * A change stream of every collection of this database, as the driver's `db.watch()`: their
   * documents' changes, each collection's `drop` and `rename`, and `dropDatabase`, after which an
   * `invalidate` ends it. Its `system.*` collections are left out. Options as `collection.watch()`.
   */
  watch(pipeline: Document[] = [], options: WatchOptions = {}): EmbeddedChangeStream {
    return new EmbeddedChangeStream(this.#changeSource({ kind: 'database', db: this.databaseName }), pipeline, options)
  }

  /** Where a stream of this engine reads; a transaction's database keeps no change log, and has no stream. */
  #changeSource(scope: ChangeScope): ChangeSource {
    if (!this.#engine.open) throw closedError()
    const feed = changeFeedOf(this.#engine.storage)
    if (!feed) throw invalidArgumentError('watch() is not available inside a transaction')
    const { storage, defaultName } = this.#engine
    return { feed, scope, namespaceOf: (storageName) => namespaceOfStorage(storageName, defaultName), keepsImages: (storageName) => keepsImages(storage.readOptions(storageName)) }
  }

  /**
   * A database-level aggregation, as the driver's `Db.aggregate`: the first stage makes the
   * documents (`$documents`, or `$listLocalSessions`, which lists `localSessions`: none in-process,
   * those of its clients from the wire server); later stages may
   * read collections (`$lookup`) and end in `$out` or `$merge`. Runs on the cursor's first read.
   * `let` and `collation` as on a collection's aggregate.
   */
  aggregate(pipeline: Document[], options: { maxTimeMS?: number, localSessions?: Document[], let?: Document, collation?: CollationOptions | undefined, allowDiskUse?: boolean | undefined } & PromoteOptions = {}): EmbeddedCursor {
    if (!this.#engine.open) throw closedError()
    if (!Array.isArray(pipeline)) throw invalidArgumentError('pipeline must be an array')
    const source = {
      read: () => [],
      resolve: (name: string) => this.#readAll(name),
      output: (db: string | undefined, coll: string) => this.#outputTarget(db, coll),
      collectionless: true,
      expand: (stages: Document[]) => withLocalSessions(stages, options.localSessions ?? []),
      settings: () => ({
        variables: resolveLet(options.let, 'aggregate'),
        collation: toCollation(options.collation),
        sortMemory: { limitBytes: this.#engine.reads.sortMemoryLimitBytes, pool: this.#engine.reads.sortMemoryPool, allowDiskUse: options.allowDiskUse === true },
        expressionMemoryLimitBytes: this.#engine.reads.expressionMemoryLimitBytes,
      }),
    }
    return aggregateCursor(source, pipeline, options.maxTimeMS, valueFormOf(options))
  }

  /**
   * Turns a test fail point on or off, as the `configureFailPoint` command does (fail-points.ts):
   * `maxTimeAlwaysTimeOut` makes every operation with a `maxTimeMS` fail with MaxTimeMSExpired.
   * Process-wide, like a mongod's: it applies to every engine of the process. An unknown name or
   * mode is refused with BadValue (code 2), whatever the caller's types said. (`failCommand` fails
   * wire commands: the wire server's `configureFailPoint` command sets it.)
   */
  configureFailPoint(name: FailPointName, mode: FailPointMode): void {
    configureFailPoint(name, mode)
  }

  /**
   * @internal The time of the last change the engine committed (changes/cluster-time.ts): what the
   * wire server answers as `operationTime` and `$clusterTime` when it presents a replica set.
   */
  clusterTime(): Timestamp {
    if (!this.#engine.open) throw closedError()
    return clusterTimeOf(changeFeedOf(this.#engine.storage)?.store.bounds().last ?? 0)
  }

  /** Lets queued writes of every database finish, then closes storage; later calls fail. Idempotent. */
  async close(): Promise<void> {
    if (!this.#engine.open) return
    // An open transaction holds write queues: its writes are dropped, as on a server that stops.
    await this.#engine.client?.abortAll()
    const collections = [...this.#engine.databases.values()].flatMap((db) => [...db.#collections.values()])
    await Promise.all(collections.map((c) => c.queue.drain()))
    this.#engine.open = false
    // Every change stream ends (its pending `next()` rejects, its iteration stops).
    changeFeedOf(this.#engine.storage)?.close()
    await this.#engine.storage.close()
  }

  #isDefault(): boolean {
    return this.databaseName === this.#engine.defaultName
  }

  #storageName(collection: string): string {
    return this.#isDefault() ? collection : `${this.databaseName}$${collection}`
  }

  /** Where an aggregation of this database writes with `$out` or `$merge` (`db` undefined: this one). */
  #outputTarget(db: string | undefined, coll: string): OutputTarget {
    const owner = db === undefined ? this : this.db(db)
    if (owner.#views.get(coll)) throw commandNotSupportedOnViewError(`${owner.databaseName}.${coll}`)
    return { core: EmbeddedCollection.coreOf(owner.collection(coll)), create: () => owner.createCollection(coll) }
  }

  /**
   * Every document of a sibling collection (or view), freshly decoded (for `$lookup`, `$unionWith`,
   * `$graphLookup`, and a view's `viewOn`). The name comes from the client's pipeline: checked as
   * `collection()` checks it, or a NUL byte or a `$` would reach another collection's storage.
   */
  #readAll(name: string): Document[] {
    checkCollectionName(this.databaseName, name)
    const view = this.#views.get(name)
    if (view) return aggregateDocuments(this.#readAll(view.viewOn), view.pipeline, (other) => this.#readAll(other), { expressionMemoryLimitBytes: this.#engine.reads.expressionMemoryLimitBytes })
    const storage = this.#engine.storage.collection(this.#storageName(name))
    const docs: Document[] = []
    const walk = storage.scan()
    for (let next = walk.next(); !next.done; next = walk.next()) docs.push(decodeDocument(next.value))
    return docs
  }
}
