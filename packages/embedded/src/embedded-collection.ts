import { ObjectId } from 'mongodb'
import { type AggregateSource, aggregateCursor } from './aggregate/aggregate-cursor.js'
import type { CollectionResolver } from './aggregate/aggregate-documents.js'
import { leadingSort } from './aggregate/leading-sort.js'
import type { OutputResolver } from './aggregate/output-target.js'
import { decodeInForm } from './bson/bson-codec.js'
import { storedDocument } from './bson/stored-document.js'
import { AS_HELD, inForm, type PromoteOptions, promoteOptionsOf, valueFormOf } from './bson/value-form.js'
import { toCollation } from './collation/collation.js'
import { checkId } from './collection/check-id.js'
import { CollectionCore, type Namespace } from './collection/collection-core.js'
import { checkWritableCollection } from './collection/collection-name.js'
import type { ViewDefinition } from './collection/views.js'
import { type CollationOptions, type Document, type FindOptions, isNonArrayObject } from './document.js'
import { commandNotSupportedOnViewError, invalidArgumentError } from './errors.js'
import { ID_INDEX } from './indexes/index-catalog.js'
import type { Deadline } from './pace/deadline.js'
import { bindVariables, resolveLet } from './query/let-variables.js'
import { EmbeddedCursor } from './read/cursor.js'
import { distinctValues } from './read/distinct-values.js'
import { compileProjection, readDocuments } from './read/read-documents.js'
import type { ReadSettings } from './read-settings.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES, type SortMemory } from './sort/sort-memory-limit.js'
import { toFindSort, toSortSpec } from './sort/sort-spec.js'
import type { Storage, StoredIndex } from './storage/storage.js'
import { openTransactionOf } from './transaction/embedded-session.js'
import { isOperatorUpdate } from './update/build-upsert.js'
import { type Change, findAndModify, type ModifyOptions, type UpdateResult, updateDocuments } from './update/modify-documents.js'
import { matchesInSlices } from './update/paced-matches.js'
import { checkPipelineUpdate } from './update/pipeline-update.js'
import { EmbeddedChangeStream, type WatchOptions } from './watch/change-stream.js'

type ReturnDocument = 'before' | 'after'

/** How a collection learns whether its name is a view, and reaches the view's source. */
interface ViewAccess {
  definition: () => ViewDefinition | undefined
  source: (viewOn: string) => EmbeddedCollection
}

/** Options of findOneAndUpdate and findOneAndReplace, as the driver's. */
export interface FindOneAndOptions extends PromoteOptions {
  returnDocument?: ReturnDocument | undefined
  projection?: Document | undefined
  /** The first match in this order is changed: `{ field: 1 | -1 }` (`{ $natural: 1 }`: scan order). */
  sort?: Record<string, 1 | -1> | undefined
  upsert?: boolean | undefined
  arrayFilters?: Document[] | undefined
  maxTimeMS?: number | undefined
  /** Answer a `ModifyResult` (the document with what happened) instead of the document alone. */
  includeResultMetadata?: boolean | undefined
  /** Variables for `$$name` in the filter's `$expr` and in an update pipeline: name → expression, evaluated once. */
  let?: Document | undefined
  /** Match and sort comparing strings in this collation's order. */
  collation?: CollationOptions | undefined
}

export type FindOneAndDeleteOptions = Pick<FindOneAndOptions, 'projection' | 'sort' | 'maxTimeMS' | 'includeResultMetadata' | 'let' | 'collation' | 'promoteValues' | 'promoteLongs' | typeof AS_HELD>

/** Options of deleteOne and deleteMany, as the driver's. */
interface DeleteOptions {
  maxTimeMS?: number | undefined
  /** Variables for `$$name` in the filter's `$expr`: name → expression, evaluated once. */
  let?: Document | undefined
  collation?: CollationOptions | undefined
}

/** What a findOneAnd* method answers with `includeResultMetadata: true`, as the driver's `ModifyResult`. */
export interface ModifyResult {
  /** The document before the change, or after it with `returnDocument: 'after'`; null when none matched. */
  value: Document | null
  /** `n`: documents found or upserted (0 or 1); `updatedExisting`: a matched document was changed; `upserted`: the new `_id`. */
  lastErrorObject: { n: number, updatedExisting: boolean, upserted?: unknown }
  ok: 1
}

type WithMetadata<O> = O & { includeResultMetadata: true }
type WithoutMetadata<O> = O & { includeResultMetadata?: false }
/** Every operation takes the driver's `session` option: in its open transaction, the operation runs inside it. */
type WithSession<O> = O & { session?: unknown }

/**
 * One collection of the embedded engine, with the official driver's `Collection` semantics for
 * the methods it has (the wire server uses no others). Reads run directly
 * against storage; every write runs in the collection's write queue and awaits its durable
 * commit before the next one starts.
 */
export class EmbeddedCollection {
  readonly collectionName: string
  readonly #dbName: string
  readonly #core: CollectionCore
  readonly #resolve: CollectionResolver
  readonly #output: OutputResolver
  readonly #view: ViewAccess
  readonly #reads: ReadSettings | undefined

  /** The write primitives of a collection, for engine code only (an aggregation's `$out` and `$merge`). */
  static coreOf: (collection: EmbeddedCollection) => CollectionCore
  /**
   * For the wire server: the stored bytes of the document `findOne(filter)` would answer, without
   * options, when the filter names one ObjectId `_id` (`null`: no such document); undefined when the
   * read needs more than the key (another filter, a view), and the caller reads through `findOne`.
   */
  static storedPointOf: (collection: EmbeddedCollection, filter: Document) => Uint8Array | null | undefined
  static {
    EmbeddedCollection.coreOf = (collection) => collection.#core
    EmbeddedCollection.storedPointOf = (collection, filter) => {
      if (collection.#view.definition()) return undefined
      collection.#core.assertOpen()
      return collection.#core.pointBytes(filter)
    }
  }

  constructor(storage: Storage, namespace: Namespace, isOpen: () => boolean, resolve: CollectionResolver, output: OutputResolver, view: ViewAccess, reads?: ReadSettings) {
    this.collectionName = namespace.name
    this.#dbName = namespace.db
    this.#core = new CollectionCore(storage, namespace, isOpen)
    this.#resolve = resolve
    this.#output = output
    this.#view = view
    this.#reads = reads
  }

  /** Views are read-only: every write (and index operation) on one fails with 166, as on the server. */
  #assertNotView(): void {
    if (this.#view.definition()) throw commandNotSupportedOnViewError(this.#core.ns)
  }

  /** Neither a view nor one of the engine's `system.*` collections (collection-name.ts). */
  #assertWritable(): void {
    this.#assertNotView()
    checkWritableCollection(this.collectionName, this.#core.ns)
  }

  /**
   * This collection as the open transaction of `options.session` sees it, with the options left
   * without the session; undefined outside a transaction (the operation runs here).
   */
  #inTransaction<O extends { session?: unknown }>(options: O): { target: EmbeddedCollection, options: Omit<O, 'session'> } | undefined {
    const transaction = openTransactionOf(options.session)
    if (transaction === undefined) return undefined
    const { session: _session, ...rest } = options
    const db = transaction.db(this.#dbName) as { collection(name: string): EmbeddedCollection }
    return { target: db.collection(this.collectionName), options: rest }
  }

  /** What a sort without an index may hold: its own limit, within what the engine's sorts may hold together. */
  #sortMemory(): SortMemory {
    return { limitBytes: this.#reads?.sortMemoryLimitBytes ?? DEFAULT_SORT_MEMORY_LIMIT_BYTES, pool: this.#reads?.sortMemoryPool }
  }

  /** The write queue: every write of this collection runs through it, in order. */
  get queue() {
    return this.#core.queue
  }

  /**
   * Like the driver: a missing or null `_id` gets a new ObjectId, unless `forceServerObjectId`
   * leaves it to the server, which generates only a missing one and stores an explicit null.
   */
  async insertOne(doc: Document, options: WithSession<{ forceServerObjectId?: boolean }> = {}): Promise<{ acknowledged: boolean, insertedId: unknown }> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.insertOne(doc, tx.options)
    this.#assertWritable()
    if (!isNonArrayObject(doc)) throw invalidArgumentError('insertOne expects a document')
    // The driver assigns the generated _id to the caller's object too; so do we.
    if (doc['_id'] === undefined || (doc['_id'] === null && options.forceServerObjectId !== true)) doc['_id'] = new ObjectId()
    const insertedId = doc['_id']
    const stored = storedDocument(doc)
    checkId(stored.doc['_id'])
    await this.#core.write(() => this.#core.insertStored(stored))
    return { acknowledged: true, insertedId }
  }

  async findOne(filter: Document, options: WithSession<Omit<FindOptions, 'limit'> & PromoteOptions> = {}): Promise<Document | null> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.findOne(filter, tx.options)
    // GET one's read: straight from the key, when nothing (options, a view) asks for more.
    if (onlyReadForm(options) && !this.#view.definition()) {
      this.#core.assertOpen()
      const bytes = this.#core.pointBytes(filter)
      if (bytes !== undefined) return bytes === null ? null : decodeInForm(bytes, valueFormOf(options))
    }
    const [doc] = await this.find(filter, { ...options, limit: 1 }).toArray()
    return doc ?? null
  }

  find(filter: Document, options: WithSession<FindOptions & PromoteOptions> = {}): EmbeddedCursor {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.find(filter, tx.options)
    this.#core.assertOpen()
    const view = this.#view.definition()
    if (view) {
      const settings = { ...(options.maxTimeMS ? { maxTimeMS: options.maxTimeMS } : {}), let: options.let, collation: options.collation, ...promoteOptionsOf(options) }
      return this.#view.source(view.viewOn).aggregate([...view.pipeline, ...findStages(filter, options)], settings)
    }
    return new EmbeddedCursor((deadline) => {
      // The planner sees the sort (and a collation, which keeps it off indexes); when its index
      // yields the documents in sort order, the read needs no sort of its own.
      const plan = this.#core.plan(filter, { sort: toFindSort(options.sort), collation: options.collation })
      const source = { storage: this.#core.storage, pointKeys: () => plan?.keys }
      return readDocuments(source, bindVariables(filter, resolveLet(options.let, 'find')), plan?.sorted ? withoutSort(options) : options, deadline, this.#sortMemory())
    }, options.maxTimeMS)
  }

  /** As the driver's: without a filter, every document. */
  async countDocuments(filter: Document = {}, options: WithSession<Pick<FindOptions, 'maxTimeMS' | 'skip' | 'limit' | 'let' | 'collation'>> = {}): Promise<number> {
    let count = 0
    for await (const _ of this.find(filter, options)) count++
    return count
  }

  /**
   * The documents of the collection, as the driver's `estimatedDocumentCount()`. The engine keeps no
   * count beside its documents, so this is the exact count, read as `countDocuments({})` reads it.
   */
  estimatedDocumentCount(options: Pick<FindOptions, 'maxTimeMS'> = {}): Promise<number> {
    return this.countDocuments({}, options)
  }

  findOneAndReplace(filter: Document, replacement: Document, options: WithSession<WithMetadata<FindOneAndOptions>>): Promise<ModifyResult>
  findOneAndReplace(filter: Document, replacement: Document, options?: WithSession<WithoutMetadata<FindOneAndOptions>>): Promise<Document | null>
  async findOneAndReplace(filter: Document, replacement: Document, options: WithSession<FindOneAndOptions> = {}): Promise<ModifyResult | Document | null> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.findOneAndReplace(filter, replacement, tx.options as FindOneAndOptions as WithoutMetadata<FindOneAndOptions>)
    this.#assertWritable()
    assertReplacement(replacement)
    return answer(this.#core, filter, replacement, options)
  }

  findOneAndUpdate(filter: Document, update: Change, options: WithSession<WithMetadata<FindOneAndOptions>>): Promise<ModifyResult>
  findOneAndUpdate(filter: Document, update: Change, options?: WithSession<WithoutMetadata<FindOneAndOptions>>): Promise<Document | null>
  async findOneAndUpdate(filter: Document, update: Change, options: WithSession<FindOneAndOptions> = {}): Promise<ModifyResult | Document | null> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.findOneAndUpdate(filter, update, tx.options as FindOneAndOptions as WithoutMetadata<FindOneAndOptions>)
    this.#assertWritable()
    assertOperators(update)
    return answer(this.#core, filter, update, options)
  }

  findOneAndDelete(filter: Document, options: WithSession<WithMetadata<FindOneAndDeleteOptions>>): Promise<ModifyResult>
  findOneAndDelete(filter: Document, options?: WithSession<WithoutMetadata<FindOneAndDeleteOptions>>): Promise<Document | null>
  async findOneAndDelete(filter: Document, options: WithSession<FindOneAndDeleteOptions> = {}): Promise<ModifyResult | Document | null> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.findOneAndDelete(filter, tx.options as FindOneAndDeleteOptions as WithoutMetadata<FindOneAndDeleteOptions>)
    this.#assertWritable()
    return answer(this.#core, filter, null, options)
  }

  /**
   * The distinct values of `key` (a dotted path) among the matches, array elements one by one, in BSON
   * order; under a collation, values equal under it are one value (the first found).
   */
  async distinct(key: string, filter: Document = {}, options: WithSession<Pick<FindOptions, 'maxTimeMS' | 'collation'> & PromoteOptions> = {}): Promise<unknown[]> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.distinct(key, filter, tx.options)
    const collation = toCollation(options.collation)
    return distinctValues(this.find(filter, options), key, collation)
  }

  /** `update`: an update document (`{ $set: ... }`) or an update pipeline (`[{ $set: ... }]`). */
  async updateOne(filter: Document, update: Change, options: WithSession<ModifyOptions> = {}): Promise<UpdateResult> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.updateOne(filter, update, tx.options)
    this.#assertWritable()
    assertOperators(update)
    return updateDocuments(this.#core, filter, update, false, options)
  }

  async updateMany(filter: Document, update: Change, options: WithSession<ModifyOptions> = {}): Promise<UpdateResult> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.updateMany(filter, update, tx.options)
    this.#assertWritable()
    assertOperators(update)
    return updateDocuments(this.#core, filter, update, true, options)
  }

  async replaceOne(filter: Document, replacement: Document, options: WithSession<ModifyOptions> = {}): Promise<UpdateResult> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.replaceOne(filter, replacement, tx.options)
    this.#assertWritable()
    assertReplacement(replacement)
    return updateDocuments(this.#core, filter, replacement, false, options)
  }

  async deleteOne(filter: Document, options: WithSession<DeleteOptions> = {}): Promise<{ deletedCount: number }> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.deleteOne(filter, tx.options)
    this.#assertWritable()
    const matching = bindVariables(filter, resolveLet(options.let, 'delete'))
    const collation = toCollation(options.collation)
    return this.#core.write(async () => {
      const found = this.#core.first(matching, options.maxTimeMS, undefined, collation)
      return { deletedCount: found ? await this.#core.remove([found]) : 0 }
    })
  }

  async deleteMany(filter: Document, options: WithSession<DeleteOptions> = {}): Promise<{ deletedCount: number }> {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.deleteMany(filter, tx.options)
    this.#assertWritable()
    const matching = bindVariables(filter, resolveLet(options.let, 'delete'))
    const collation = toCollation(options.collation)
    return this.#core.write(async () => ({ deletedCount: await this.#core.remove(await matchesInSlices(this.#core, matching, options.maxTimeMS, collation)) }))
  }

  /**
   * A change stream of this collection's writes, as the driver's `collection.watch()`: each
   * acknowledged insert, update, replace and delete, read from the engine's durable change log
   * (resumable with `resumeAfter` while the log keeps the change: `openEmbedded`'s `changeRetention`);
   * the collection's `drop` or `rename` ends it with an `invalidate` event.
   */
  watch(pipeline: Document[] = [], options: WatchOptions = {}): EmbeddedChangeStream {
    this.#core.assertOpen()
    this.#assertNotView()
    const source = this.#core.changeSource()
    if (!source) throw invalidArgumentError('watch() is not available inside a transaction')
    return new EmbeddedChangeStream(source, pipeline, options)
  }

  /**
   * Runs an aggregation pipeline; `$lookup` and friends read collections of the same database.
   * `let` variables are read as `$$name` by `$match`'s `$expr` and by the stages' expressions. A
   * collation applies to `$match` and `$sort` stages and comparison expressions; stages it cannot
   * reach are refused (collation-refusals.ts). A final `$out` or `$merge` writes the results (on the
   * cursor's first read) and yields nothing.
   */
  aggregate(pipeline: Document[], options: WithSession<{ maxTimeMS?: number, let?: Document | undefined, collation?: CollationOptions | undefined, allowDiskUse?: boolean | undefined } & PromoteOptions> = {}): EmbeddedCursor {
    const tx = this.#inTransaction(options)
    if (tx) return tx.target.aggregate(pipeline, tx.options)
    if (!Array.isArray(pipeline)) throw invalidArgumentError('pipeline must be an array')
    this.#core.assertOpen()
    const view = this.#view.definition()
    if (view) return this.#view.source(view.viewOn).aggregate([...view.pipeline, ...pipeline], options)
    const [first, ...rest] = pipeline
    const leadingMatch = first !== undefined && Object.keys(first).length === 1 && Object.hasOwn(first, '$match')
    const filter = leadingMatch ? (first['$match'] as Document) : {}
    const stages = leadingMatch ? rest : pipeline
    // A leading `$sort` is the read's own (leading-sort.ts): an index may serve it, else it sorts BSON in slices.
    const sorted = leadingSort(stages)
    const later = sorted === undefined ? stages : stages.slice(1)
    // Stages compute on numbers as the engine holds them; without any, the read hands out the caller's form itself.
    const form = later.length === 0 ? valueFormOf(options) : 'held'
    const core = this.#core
    const readMatches = (match: Document, deadline: Deadline, sortMemory: SortMemory) => {
      const sort = sorted === undefined ? undefined : toSortSpec(sorted.sort)
      const plan = core.plan(match, { sort, collation: options.collation })
      const found = { storage: core.storage, pointKeys: () => plan?.keys }
      const order = sort === undefined || plan?.sorted ? {} : { sort, ...(sorted?.limit === undefined ? {} : { limit: sorted.limit }) }
      return readDocuments(found, match, { collation: options.collation, ...order, ...(form === 'held' ? { [AS_HELD]: true as const } : promoteOptionsOf(options)) }, deadline, sortMemory)
    }
    const source: AggregateSource = {
      // Resolved when the cursor runs, as the driver's aggregate fails on its first batch.
      settings: () => ({
        variables: resolveLet(options.let, 'aggregate'),
        collation: toCollation(options.collation),
        sortMemory: { ...this.#sortMemory(), allowDiskUse: options.allowDiskUse === true },
        expressionMemoryLimitBytes: this.#reads?.expressionMemoryLimitBytes,
      }),
      read: (deadline, settings) => readMatches(bindVariables(filter, settings.variables), deadline, settings.sortMemory!),
      resolve: this.#resolve,
      output: this.#output,
      collectionless: false,
    }
    return aggregateCursor(source, later, options.maxTimeMS, form === 'held' ? valueFormOf(options) : 'held')
  }

  /** Creates an index (or finds the same one); a new one is a `createIndexes` event of change streams, committed with it. */
  async createIndex(keys: Record<string, 1 | -1>, options: { unique?: boolean, name?: string } = {}): Promise<string> {
    this.#assertWritable()
    return this.#core.write(async () => {
      const before = this.#core.indexes.list()
      const name = await this.#core.indexes.create(keys, options, () => this.#core.all())
      if (name !== ID_INDEX && !before.some((index) => index.name === name)) {
        await this.#core.logDefinition('createIndexes', { d: { indexes: [indexSpecOf({ name, key: keys, unique: options.unique === true })] } })
      }
      return name
    })
  }

  /**
   * Every index, `_id`'s first: a cursor of the server's specifications (`{ v: 2, key, name }`, with
   * `unique: true` for a unique one), as the driver's `listIndexes` answers. Like the driver's, it
   * reads when iterated, and a view's refusal comes from `toArray`, not from this call.
   */
  listIndexes(): EmbeddedCursor {
    return new EmbeddedCursor(() => {
      this.#assertNotView()
      const indexes: StoredIndex[] = [{ name: ID_INDEX, key: { _id: 1 }, unique: false }, ...this.#core.indexes.list()]
      return indexes.map(indexSpecOf)[Symbol.iterator]()
    }, undefined)
  }

  /** Drops an index by name (`*`: all but `_id`'s); false when there is no such index. Change streams see a `dropIndexes`. */
  async dropIndex(name: string): Promise<boolean> {
    this.#assertWritable()
    if (name === ID_INDEX) throw invalidArgumentError('cannot drop _id index')
    const dropped = this.#core.indexes.list().filter((index) => name === '*' || index.name === name)
    const found = await this.#core.dropIndex(name)
    if (found && dropped.length > 0) await this.#core.logDefinition('dropIndexes', { d: { indexes: dropped.map(indexSpecOf) } })
    return found
  }

  /** Forgets in-memory index state after the collection was dropped underneath. */
  reset(): void {
    this.#core.reset()
  }
}

/** An index as the server describes it (`listIndexes`, change events): `{ v: 2, key, name }`, with `unique: true` for a unique one. */
function indexSpecOf({ name, key, unique }: StoredIndex): Document {
  return unique ? { v: 2, key, name, unique } : { v: 2, key, name }
}

/** Options that ask for nothing but the form of the numbers (value-form.ts), or none. */
function onlyReadForm(options: object): boolean {
  for (const key in options) if (key !== 'promoteValues' && key !== 'promoteLongs') return false
  return true
}

function withoutSort({ sort: _sort, ...rest }: FindOptions): FindOptions {
  return rest
}


/**
 * The driver's own check, on the first key: an update must start with an operator (a pipeline:
 * one of its stages must). A document that then mixes in plain fields is the server's to refuse
 * (FailedToParse, 9, from isOperatorUpdate). A pipeline's stages get the server's checks first
 * (40324 for `[{ foo: 1 }]`), so that the wire server, which calls these methods, answers as mongod.
 */
function assertOperators(update: Change): void {
  if (Array.isArray(update)) checkPipelineUpdate(update)
  if (!hasAtomicOperators(update)) throw invalidArgumentError('Update document requires atomic operators')
  if (!Array.isArray(update)) isOperatorUpdate(update)
}

/** The driver's check on a replacement: a document or a pipeline whose first key is an operator is refused. */
function assertReplacement(replacement: Document): void {
  if (hasAtomicOperators(replacement)) throw invalidArgumentError('Replacement document must not contain atomic operators')
}

function hasAtomicOperators(change: unknown): boolean {
  if (Array.isArray(change)) return change.some(hasAtomicOperators)
  if (typeof change !== 'object' || change === null) return false
  return Object.keys(change)[0]?.startsWith('$') === true
}

/** Runs findAndModify (`change` null removes) and answers as the findOneAnd* methods do. */
async function answer(core: CollectionCore, filter: Document, change: Change | null, options: FindOneAndOptions): Promise<ModifyResult | Document | null> {
  const project = compileProjection(options.projection)
  const { returnDocument, projection: _projection, includeResultMetadata, sort, promoteValues: _values, promoteLongs: _longs, ...rest } = options
  const result = await findAndModify(core, filter, change, { ...rest, sort: toFindSort(sort), returnNew: returnDocument === 'after' })
  const value = result.value === null ? null : inForm(project(result.value), valueFormOf(options))
  if (!includeResultMetadata) return value
  const lastErrorObject: ModifyResult['lastErrorObject'] = { n: result.n, updatedExisting: result.updatedExisting }
  if (result.upsertedId !== undefined) lastErrorObject.upserted = result.upsertedId
  return { value, lastErrorObject, ok: 1 }
}

/** A find on a view, as the server runs it: the view's pipeline, then the find's filter, sort, skip, limit and projection. */
function findStages(filter: Document, options: FindOptions): Document[] {
  const stages: Document[] = [{ $match: filter }]
  if (options.sort && Object.keys(options.sort).length > 0) stages.push({ $sort: options.sort })
  if (options.skip) stages.push({ $skip: options.skip })
  if (options.limit) stages.push({ $limit: options.limit })
  if (options.projection && Object.keys(options.projection).length > 0) stages.push({ $project: options.projection })
  return stages
}
