import { toWire } from './codec.js'
import type { CollectionContext } from './collection-context.js'
import { findOptions } from './find-options.js'
import { translating, translatingCursor } from './map-driver-error.js'
import { isObjectIdHex } from './object-id.js'
import type { CollectionStore } from './store.js'

type CollectionReads = Pick<CollectionStore, 'list' | 'find' | 'count' | 'estimatedCount' | 'findOne' | 'findSnapshot' | 'findByIds'>

/** The read half of a collection's store: every document read leaves here in wire form (`toWire`). */
export function collectionReads(context: CollectionContext): CollectionReads {
  const { collection, ids, timeLimit, mongoFilter, projection } = context
  return {
    list: (query) => translatingCursor(collection.find(mongoFilter(query.filter), findOptions(query, context)), toWire),
    find: (query) =>
      translating(async () => (await collection.find(mongoFilter(query.filter), findOptions(query, context)).toArray()).map(toWire)),
    count: (filter) => translating(() => collection.countDocuments(mongoFilter(filter), timeLimit)),
    // From the collection's metadata where the Db has it (MongoDB); a Db without it counts.
    estimatedCount: () =>
      translating(() => collection.estimatedDocumentCount?.(timeLimit) ?? collection.countDocuments({}, timeLimit)),
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
    findByIds: (wanted) =>
      translating(async () => {
        const valid = [...new Set(wanted)].filter(isObjectIdHex).map(ids.fromHex)
        if (valid.length === 0) return []
        return (await collection.find({ _id: { $in: valid } }, timeLimit).toArray()).map(toWire)
      }),
  }
}
