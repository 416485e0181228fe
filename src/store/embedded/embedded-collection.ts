import { ObjectId } from 'mongodb'
import type { Document, DriverCollection, DriverFindOptions } from '../driver-db.js'
import { applyUpdate, buildReplacement } from './apply-update.js'
import { copyThroughBson, decodeDocument, encodeDocument } from './bson-codec.js'
import { compileFilter } from './compile-filter.js'
import { EmbeddedCursor } from './cursor.js'
import { Deadline } from './deadline.js'
import { badValueError, closedError, duplicateKeyError, invalidArgumentError, invalidIdError } from './errors.js'
import { ID_INDEX, IndexCatalog } from './index-catalog.js'
import type { CollectionStorage, Storage } from './persist/storage.js'
import { readDocuments } from './read-documents.js'
import { scanDocuments } from './scan-documents.js'
import { toValueKey } from './value-key.js'
import { WriteQueue } from './write-queue.js'

type Found = [key: string, doc: Document]

/**
 * One collection of the embedded engine, with the driver's `Collection` semantics for the
 * methods in `DriverCollection`. Reads run directly against storage; every write runs in the
 * collection's write queue and awaits its durable commit before the next one starts.
 */
export class EmbeddedCollection implements DriverCollection {
  readonly collectionName: string
  readonly queue = new WriteQueue()
  readonly #ns: string
  readonly #storage: CollectionStorage
  readonly #indexes: IndexCatalog
  readonly #isOpen: () => boolean
  #loaded = false

  constructor(storage: Storage, dbName: string, name: string, isOpen: () => boolean) {
    this.collectionName = name
    this.#ns = `${dbName}.${name}`
    this.#storage = storage.collection(name)
    this.#indexes = new IndexCatalog(storage, name, this.#ns)
    this.#isOpen = isOpen
  }

  async insertOne(doc: Document): Promise<{ acknowledged: boolean, insertedId: unknown }> {
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidArgumentError('insertOne expects a document')
    // The driver assigns the generated _id to the caller's object too; so do we.
    if (doc['_id'] === undefined || doc['_id'] === null) doc['_id'] = new ObjectId()
    const insertedId = doc['_id']
    const { _id, ...fields } = copyThroughBson(doc)
    const stored: Document = { _id, ...fields }
    checkId(_id)
    const bytes = encodeDocument(stored)
    return this.#write(async () => {
      const key = toValueKey(_id)
      if (this.#storage.get(key) !== undefined) throw duplicateKeyError(this.#ns, ID_INDEX, { _id })
      this.#checkUnique(stored, key)
      await this.#storage.put(key, bytes)
      for (const index of this.#indexes.unique) index.add(stored, key)
      return { acknowledged: true, insertedId }
    })
  }

  async findOne(filter: Document, options: { projection?: Document, maxTimeMS?: number } = {}): Promise<Document | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 }).toArray()
    return doc ?? null
  }

  find(filter: Document, options: DriverFindOptions = {}): EmbeddedCursor {
    this.#assertOpen()
    return new EmbeddedCursor((deadline) => readDocuments(this.#storage, filter, options, deadline), options.maxTimeMS)
  }

  async countDocuments(filter: Document, options: { maxTimeMS?: number } = {}): Promise<number> {
    let count = 0
    for await (const _ of this.find(filter, options)) count++
    return count
  }

  async findOneAndReplace(filter: Document, replacement: Document, options: { returnDocument: 'after', maxTimeMS?: number }): Promise<Document | null> {
    return this.#write(async () => {
      const found = this.#first(filter, options.maxTimeMS)
      if (!found) return null
      const [key, before] = found
      const after = buildReplacement(before, replacement)
      await this.#commit(key, before, after)
      return after
    })
  }

  async findOneAndUpdate(filter: Document, update: Document, options: { returnDocument: 'after', arrayFilters?: Document[], maxTimeMS?: number }): Promise<Document | null> {
    return this.#write(async () => {
      const found = this.#first(filter, options.maxTimeMS)
      if (!found) return null
      const [key, before] = found
      const after = decodeDocument(encodeDocument(before))
      if (applyUpdate(after, update, filter, options.arrayFilters)) await this.#commit(key, before, after)
      return after
    })
  }

  async updateOne(filter: Document, update: Document, options: { arrayFilters?: Document[], maxTimeMS?: number } = {}): Promise<{ matchedCount: number, modifiedCount: number }> {
    return this.#write(async () => {
      const found = this.#first(filter, options.maxTimeMS)
      if (!found) return { matchedCount: 0, modifiedCount: 0 }
      const [key, before] = found
      const after = decodeDocument(encodeDocument(before))
      const modified = applyUpdate(after, update, filter, options.arrayFilters) && (await this.#commit(key, before, after))
      return { matchedCount: 1, modifiedCount: modified ? 1 : 0 }
    })
  }

  async deleteOne(filter: Document, options: { maxTimeMS?: number } = {}): Promise<{ deletedCount: number }> {
    return this.#write(async () => {
      const found = this.#first(filter, options.maxTimeMS)
      return { deletedCount: found ? await this.#remove([found]) : 0 }
    })
  }

  async deleteMany(filter: Document, options: { maxTimeMS?: number } = {}): Promise<{ deletedCount: number }> {
    return this.#write(async () => {
      const deadline = startDeadline(options.maxTimeMS)
      const found: Found[] = []
      for (const doc of scanDocuments(this.#storage, filter, compileFilter(filter), deadline)) found.push([toValueKey(doc['_id']), doc])
      return { deletedCount: await this.#remove(found) }
    })
  }

  async createIndex(keys: Record<string, 1 | -1>, options: { unique?: boolean, name?: string } = {}): Promise<string> {
    return this.#write(() => this.#indexes.create(keys, options, () => this.#all()))
  }

  /** Forgets in-memory index state after the database was dropped underneath. */
  reset(): void {
    this.#indexes.clear()
    this.#loaded = false
  }

  #write<T>(task: () => Promise<T>): Promise<T> {
    this.#assertOpen()
    return this.queue.run(() => {
      this.#assertOpen()
      if (!this.#loaded) {
        this.#indexes.load(() => this.#all())
        this.#loaded = true
      }
      return task()
    })
  }

  #assertOpen(): void {
    if (!this.#isOpen()) throw closedError()
  }

  #first(filter: Document, maxTimeMS: number | undefined): Found | undefined {
    const scan = scanDocuments(this.#storage, filter, compileFilter(filter), startDeadline(maxTimeMS))
    const { value } = scan.next()
    scan.return(undefined)
    return value ? [toValueKey(value['_id']), value] : undefined
  }

  *#all(): Generator<Found> {
    const walk = this.#storage.scan()
    try {
      for (let next = walk.next(); !next.done; next = walk.next()) {
        const doc = decodeDocument(next.value)
        yield [toValueKey(doc['_id']), doc]
      }
    } finally {
      walk.return?.()
    }
  }

  #checkUnique(doc: Document, key: string): void {
    for (const index of this.#indexes.unique) {
      const conflict = index.findConflict(doc, key)
      if (conflict) throw duplicateKeyError(this.#ns, index.name, conflict.keyValue)
    }
  }

  /** Stores `after` in place of `before`; false when the bytes are identical (a no-op update). */
  async #commit(key: string, before: Document, after: Document): Promise<boolean> {
    const bytes = encodeDocument(after)
    if (Buffer.compare(bytes, this.#storage.get(key) ?? new Uint8Array()) === 0) return false
    this.#checkUnique(after, key)
    await this.#storage.put(key, bytes)
    for (const index of this.#indexes.unique) {
      index.remove(before, key)
      index.add(after, key)
    }
    return true
  }

  async #remove(found: Found[]): Promise<number> {
    await Promise.all(found.map(([key]) => this.#storage.remove(key)))
    for (const [key, doc] of found) for (const index of this.#indexes.unique) index.remove(doc, key)
    return found.length
  }
}

function startDeadline(maxTimeMS: number | undefined): Deadline {
  const deadline = new Deadline(maxTimeMS)
  deadline.resume()
  return deadline
}

function checkId(id: unknown): void {
  if (Array.isArray(id)) throw invalidIdError(`The '_id' value cannot be of type array`)
  if (id instanceof RegExp) throw badValueError(`can't use a regex for _id`)
}
