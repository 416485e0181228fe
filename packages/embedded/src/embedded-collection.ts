import { ObjectId } from 'mongodb'
import { aggregateDocuments, type CollectionResolver } from './aggregate-documents.js'
import { copyThroughBson } from './bson-codec.js'
import { isOperatorUpdate } from './build-upsert.js'
import { checkId } from './check-id.js'
import { CollectionCore, type Namespace } from './collection-core.js'
import { EmbeddedCursor } from './cursor.js'
import type { Deadline } from './deadline.js'
import { distinctValues } from './distinct-values.js'
import type { Document, FindOptions } from './document.js'
import type { ReadSettings } from './embedded-db.js'
import { invalidArgumentError } from './errors.js'
import { ID_INDEX } from './index-catalog.js'
import { findAndModify, type ModifyOptions, type UpdateResult, updateDocuments } from './modify-documents.js'
import type { Storage, StoredIndex } from './persist/storage.js'
import { compileProjection, readDocuments } from './read-documents.js'
import { toFindSort } from './sort-spec.js'

type ReturnDocument = 'before' | 'after'

/** Options of findOneAndUpdate and findOneAndReplace, as the driver's. */
export interface FindOneAndOptions {
  returnDocument?: ReturnDocument | undefined
  projection?: Document | undefined
  /** The first match in this order is changed: `{ field: 1 | -1 }` (`{ $natural: 1 }`: scan order). */
  sort?: Record<string, 1 | -1> | undefined
  upsert?: boolean | undefined
  arrayFilters?: Document[] | undefined
  maxTimeMS?: number | undefined
  /** Answer a `ModifyResult` (the document with what happened) instead of the document alone. */
  includeResultMetadata?: boolean | undefined
}

export type FindOneAndDeleteOptions = Pick<FindOneAndOptions, 'projection' | 'sort' | 'maxTimeMS' | 'includeResultMetadata'>

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

/**
 * One collection of the embedded engine, with the official driver's `Collection` semantics for
 * the methods it has (the wire server uses no others). Reads run directly
 * against storage; every write runs in the collection's write queue and awaits its durable
 * commit before the next one starts.
 */
export class EmbeddedCollection {
  readonly collectionName: string
  readonly #core: CollectionCore
  readonly #resolve: CollectionResolver
  readonly #reads: ReadSettings | undefined

  constructor(storage: Storage, namespace: Namespace, isOpen: () => boolean, resolve: CollectionResolver, reads?: ReadSettings) {
    this.collectionName = namespace.name
    this.#core = new CollectionCore(storage, namespace, isOpen)
    this.#resolve = resolve
    this.#reads = reads
  }

  /** The write queue: every write of this collection runs through it, in order. */
  get queue() {
    return this.#core.queue
  }

  /**
   * Like the driver: a missing or null `_id` gets a new ObjectId, unless `forceServerObjectId`
   * leaves it to the server, which generates only a missing one and stores an explicit null.
   */
  async insertOne(doc: Document, options: { forceServerObjectId?: boolean } = {}): Promise<{ acknowledged: boolean, insertedId: unknown }> {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidArgumentError('insertOne expects a document')
    // The driver assigns the generated _id to the caller's object too; so do we.
    if (doc['_id'] === undefined || (doc['_id'] === null && options.forceServerObjectId !== true)) doc['_id'] = new ObjectId()
    const insertedId = doc['_id']
    const { _id, ...fields } = copyThroughBson(doc)
    checkId(_id)
    const stored: Document = { _id, ...fields }
    await this.#core.write(() => this.#core.insert(stored))
    return { acknowledged: true, insertedId }
  }

  async findOne(filter: Document, options: { projection?: Document, maxTimeMS?: number } = {}): Promise<Document | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 }).toArray()
    return doc ?? null
  }

  find(filter: Document, options: FindOptions = {}): EmbeddedCursor {
    this.#core.assertOpen()
    return new EmbeddedCursor((deadline) => readDocuments(this.#core, filter, options, deadline, this.#reads?.sortMemoryLimitBytes), options.maxTimeMS)
  }

  async countDocuments(filter: Document, options: { maxTimeMS?: number, skip?: number, limit?: number } = {}): Promise<number> {
    let count = 0
    for await (const _ of this.find(filter, options)) count++
    return count
  }

  findOneAndReplace(filter: Document, replacement: Document, options: WithMetadata<FindOneAndOptions>): Promise<ModifyResult>
  findOneAndReplace(filter: Document, replacement: Document, options?: WithoutMetadata<FindOneAndOptions>): Promise<Document | null>
  async findOneAndReplace(filter: Document, replacement: Document, options: FindOneAndOptions = {}): Promise<ModifyResult | Document | null> {
    if (isOperatorUpdate(replacement)) throw invalidArgumentError('Replacement document must not contain atomic operators')
    return answer(this.#core, filter, replacement, options)
  }

  findOneAndUpdate(filter: Document, update: Document, options: WithMetadata<FindOneAndOptions>): Promise<ModifyResult>
  findOneAndUpdate(filter: Document, update: Document, options?: WithoutMetadata<FindOneAndOptions>): Promise<Document | null>
  async findOneAndUpdate(filter: Document, update: Document, options: FindOneAndOptions = {}): Promise<ModifyResult | Document | null> {
    assertOperators(update)
    return answer(this.#core, filter, update, options)
  }

  findOneAndDelete(filter: Document, options: WithMetadata<FindOneAndDeleteOptions>): Promise<ModifyResult>
  findOneAndDelete(filter: Document, options?: WithoutMetadata<FindOneAndDeleteOptions>): Promise<Document | null>
  async findOneAndDelete(filter: Document, options: FindOneAndDeleteOptions = {}): Promise<ModifyResult | Document | null> {
    return answer(this.#core, filter, null, options)
  }

  /** The distinct values of `key` (a dotted path) among the matches, array elements one by one, in BSON order. */
  async distinct(key: string, filter: Document = {}, options: { maxTimeMS?: number } = {}): Promise<unknown[]> {
    return distinctValues(this.find(filter, options), key)
  }

  async updateOne(filter: Document, update: Document, options: ModifyOptions = {}): Promise<UpdateResult> {
    assertOperators(update)
    return updateDocuments(this.#core, filter, update, false, options)
  }

  async updateMany(filter: Document, update: Document, options: ModifyOptions = {}): Promise<UpdateResult> {
    assertOperators(update)
    return updateDocuments(this.#core, filter, update, true, options)
  }

  async replaceOne(filter: Document, replacement: Document, options: ModifyOptions = {}): Promise<UpdateResult> {
    if (isOperatorUpdate(replacement)) throw invalidArgumentError('Replacement document must not contain atomic operators')
    return updateDocuments(this.#core, filter, replacement, false, options)
  }

  async deleteOne(filter: Document, options: { maxTimeMS?: number } = {}): Promise<{ deletedCount: number }> {
    return this.#core.write(async () => {
      const found = this.#core.first(filter, options.maxTimeMS)
      return { deletedCount: found ? await this.#core.remove([found]) : 0 }
    })
  }

  async deleteMany(filter: Document, options: { maxTimeMS?: number } = {}): Promise<{ deletedCount: number }> {
    return this.#core.write(async () => ({ deletedCount: await this.#core.remove(this.#core.matching(filter, options.maxTimeMS)) }))
  }

  /** Runs an aggregation pipeline; `$lookup` and friends read collections of the same database. */
  aggregate(pipeline: Document[], options: { maxTimeMS?: number } = {}): EmbeddedCursor {
    if (!Array.isArray(pipeline)) throw invalidArgumentError('pipeline must be an array')
    const [first, ...rest] = pipeline
    const leadingMatch = first !== undefined && Object.keys(first).length === 1 && Object.hasOwn(first, '$match')
    const filter = leadingMatch ? (first['$match'] as Document) : {}
    const stages = leadingMatch ? rest : pipeline
    const core = this.#core
    const resolve = this.#resolve
    return new EmbeddedCursor(function* (deadline: Deadline): Generator<Document, undefined> {
      const source = readDocuments(core, filter, {}, deadline)
      if (stages.length === 0) yield* source
      else yield* aggregateDocuments(source, stages, resolve)
      return undefined
    }, options.maxTimeMS)
  }

  async createIndex(keys: Record<string, 1 | -1>, options: { unique?: boolean, name?: string } = {}): Promise<string> {
    return this.#core.write(() => this.#core.indexes.create(keys, options, () => this.#core.all()))
  }

  /** Every index, `_id`'s first, as the server lists them. */
  listIndexes(): StoredIndex[] {
    return [{ name: ID_INDEX, key: { _id: 1 }, unique: false }, ...this.#core.indexes.list()]
  }

  /** Drops an index by name (`*`: all but `_id`'s); false when there is no such index. */
  async dropIndex(name: string): Promise<boolean> {
    if (name === ID_INDEX) throw invalidArgumentError('cannot drop _id index')
    return this.#core.dropIndex(name)
  }

  /** Forgets in-memory index state after the collection was dropped underneath. */
  reset(): void {
    this.#core.reset()
  }
}

/**
 * The driver's own check, on the first key: an update must start with an operator. A document that
 * then mixes in plain fields is the server's to refuse (FailedToParse, 9, from isOperatorUpdate).
 */
function assertOperators(update: Document): void {
  const keys = typeof update === 'object' && update !== null && !Array.isArray(update) ? Object.keys(update) : []
  if (keys.length === 0 || !keys[0]!.startsWith('$')) throw invalidArgumentError('Update document requires atomic operators')
  isOperatorUpdate(update)
}

/** Runs findAndModify (`change` null removes) and answers as the findOneAnd* methods do. */
async function answer(core: CollectionCore, filter: Document, change: Document | null, options: FindOneAndOptions): Promise<ModifyResult | Document | null> {
  const project = compileProjection(options.projection)
  const { returnDocument, projection: _projection, includeResultMetadata, sort, ...rest } = options
  const result = await findAndModify(core, filter, change, { ...rest, sort: toFindSort(sort), returnNew: returnDocument === 'after' })
  const value = result.value === null ? null : project(result.value)
  if (!includeResultMetadata) return value
  const lastErrorObject: ModifyResult['lastErrorObject'] = { n: result.n, updatedExisting: result.updatedExisting }
  if (result.upsertedId !== undefined) lastErrorObject.upserted = result.upsertedId
  return { value, lastErrorObject, ok: 1 }
}
