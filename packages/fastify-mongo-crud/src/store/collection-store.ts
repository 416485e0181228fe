import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'
import type { ShapeNode } from '../schema/model-shape.js'
import { createArrayItems } from './array-items.js'
import { toStored, toWire } from './codec.js'
import { whileUnchanged } from './compare-and-swap.js'
import type { Document, DriverCollection, DriverDb, DriverFindOptions } from './driver-db.js'
import { translating, translatingCursor } from './map-driver-error.js'
import { isObjectIdHex, objectIdsFor } from './object-id.js'
import type { CollectionStore, DocChanges, WireDoc } from './store.js'
import { toMongoFilter, toMongoPath } from './to-mongo-filter.js'

/** Fresh ids tried before a create whose server-chosen ids keep colliding gives up. */
const ID_ATTEMPTS = 3

/** A duplicate key error on the `_id` index (not on a unique field). */
function isDuplicateId(error: unknown): boolean {
  const { code, keyPattern, message } = (error ?? {}) as { code?: unknown, keyPattern?: Record<string, unknown>, message?: unknown }
  if (code !== 11000) return false
  return keyPattern !== undefined ? Object.keys(keyPattern).join() === '_id' : / index: _id_ /.test(String(message))
}

export interface CollectionStoreOptions {
  /** Server-side time limit of every query. */
  maxTimeMS?: number | undefined
}

/**
 * The one CollectionStore, written over the driver-shaped `Db`: the official driver's and the
 * embedded engine's run the very same code.
 */
export function createCollectionStore(
  db: DriverDb,
  collectionName: string,
  shape: ShapeNode,
  options: CollectionStoreOptions = {}
): CollectionStore {
  const collection: DriverCollection = db.collection(collectionName)
  const timeLimit = options.maxTimeMS === undefined ? {} : { maxTimeMS: options.maxTimeMS }
  // Ids are written in the bson of the driver behind `db`, whichever major it is (object-id.ts).
  const ids = objectIdsFor(db)
  const stored = (doc: WireDoc) => toStored(doc, shape, ids) as Document
  const mongoFilter = (filter: Filter | undefined) => toMongoFilter(filter, shape, ids)
  const modelFields = shape.kind === 'object' ? [...shape.fields.keys()] : []

  function findOptions(query: ListQuery): DriverFindOptions {
    const found: DriverFindOptions = { ...timeLimit }
    if (query.sort !== undefined) {
      const path = toMongoPath(query.sort.path, shape)
      // `_id` as a tie-breaker makes pages stable when the sort key repeats.
      found.sort = path === '_id' ? { _id: query.sort.direction } : { [path]: query.sort.direction, _id: 1 }
    }
    if (query.skip > 0) found.skip = query.skip
    if (query.limit !== undefined) found.limit = query.limit
    if (query.fields !== undefined) found.projection = projection(query.fields)
    return found
  }
  /** `fields=` pushed down: the database reads and sends only these (`_id` is always included). */
  function projection(fields: readonly string[]): Document {
    return Object.fromEntries(fields.map((field) => [toMongoPath(field, shape), 1]))
  }

  return {
    list: (query) => translatingCursor(collection.find(mongoFilter(query.filter), findOptions(query)), toWire),
    find: (query) =>
      translating(async () => (await collection.find(mongoFilter(query.filter), findOptions(query)).toArray()).map(toWire)),
    count: (filter: Filter | undefined) => translating(() => collection.countDocuments(mongoFilter(filter), timeLimit)),
    // From the collection's metadata where the Db has it (MongoDB); a Db without it counts.
    estimatedCount: () =>
      translating(() => collection.estimatedDocumentCount?.(timeLimit) ?? collection.countDocuments({}, timeLimit)),
    asStored: (doc) => toWire(stored(doc)),
    findOne: (filter, fields) =>
      translating(async () => {
        const doc = await collection.findOne(mongoFilter(filter), fields === undefined ? timeLimit : { projection: projection(fields), ...timeLimit })
        return doc === null ? undefined : toWire(doc)
      }),
    findSnapshot: (filter) =>
      translating(async () => {
        const doc = await collection.findOne(mongoFilter(filter), timeLimit)
        return doc === null ? undefined : { doc: toWire(doc), stored: doc }
      }),
    insert: (doc) =>
      translating(async () => {
        const document = stored(doc)
        const chosen = document['_id'] !== undefined
        for (let attempt = 1; ; attempt++) {
          const attempted = chosen ? document : { _id: ids.fresh(), ...document }
          try {
            await collection.insertOne(attempted)
            return toWire(attempted)
          } catch (error) {
            // An id the server chose that is taken (a document planted there) is retried with another;
            // a client's own id, or a unique field, stays a duplicate.
            if (chosen || attempt >= ID_ATTEMPTS || !isDuplicateId(error)) throw error
          }
        }
      }),
    replace: (filter, doc, keep = [], unchanged = undefined) =>
      translating(async () => {
        const { _id: _ignored, ...replacement } = stored(doc)
        const selected = whileUnchanged(mongoFilter(filter), unchanged)
        // Set what was sent and unset the model's other fields, in one atomic update: fields the model
        // does not declare (embedded arrays, another API version's fields) are kept.
        const unset = modelFields.filter((name) => !(name in replacement) && !keep.includes(name) && name !== '_id')
        const update: Document = { $set: replacement }
        if (unset.length > 0) update['$unset'] = Object.fromEntries(unset.map((name) => [name, '']))
        const after = Object.keys(replacement).length === 0 && unset.length === 0
          ? await collection.findOne(selected, timeLimit)
          : await collection.findOneAndUpdate(selected, update, { returnDocument: 'after', ...timeLimit })
        return after === null ? undefined : toWire(after)
      }),
    update: (filter, changes: DocChanges, unchanged = undefined) =>
      translating(async () => {
        const update: Document = {}
        const set = stored(changes.set)
        delete set['_id']
        if (Object.keys(set).length > 0) update['$set'] = set
        if (changes.unset !== undefined && changes.unset.length > 0) {
          update['$unset'] = Object.fromEntries(changes.unset.map((path) => [path, '']))
        }
        const selected = whileUnchanged(mongoFilter(filter), unchanged)
        // An empty PATCH changes nothing but must still report whether the document exists.
        const after = Object.keys(update).length === 0
          ? await collection.findOne(selected, timeLimit)
          : await collection.findOneAndUpdate(selected, update, { returnDocument: 'after', ...timeLimit })
        return after === null ? undefined : toWire(after)
      }),
    remove: (filter, unchanged = undefined) =>
      translating(async () => (await collection.deleteOne(whileUnchanged(mongoFilter(filter), unchanged), timeLimit)).deletedCount === 1),
    removeMany: (filter) => translating(async () => (await collection.deleteMany(mongoFilter(filter), timeLimit)).deletedCount),
    findByIds: (wanted) =>
      translating(async () => {
        const valid = [...new Set(wanted)].filter(isObjectIdHex).map(ids.fromHex)
        if (valid.length === 0) return []
        return (await collection.find({ _id: { $in: valid } }, timeLimit).toArray()).map(toWire)
      }),
    arrayItems: (field, itemShape) => createArrayItems(collection, field, { parent: shape, item: itemShape }, { ids, timeLimit }),
    ensureIndex: (index) =>
      translating(async () => {
        await collection.createIndex({ ...index.key }, { unique: index.unique, ...(index.name === undefined ? {} : { name: index.name }) })
      }),
  }
}
