import { isObjectIdHex } from '../shapes/object-id.js'
import { toWire } from './codec.js'
import type { CollectionContext } from './collection-context.js'
import type { DriverCursor } from './driver-db.js'
import { findOptions } from './find-options.js'
import { groupRow, groupStages } from './group-pipeline.js'
import { translating, translatingCursor } from './map-driver-error.js'
import type { CollectionStore, WireDoc } from './store.js'

type CollectionReads = Pick<CollectionStore, 'list' | 'find' | 'count' | 'groups' | 'estimatedCount' | 'findOne' | 'findSnapshot' | 'findByIds'>

/** The read half of a collection's store: every document read leaves here in wire form (`toWire`). */
export function collectionReads(context: CollectionContext): CollectionReads {
  const { collection, ids, timeLimit, mongoFilter, projection, shape } = context
  return {
    list: (query) => translatingCursor(() => collection.find(mongoFilter(query.filter), findOptions(query, context)), toWire),
    find: (query) => translating(() => readAll(collection.find(mongoFilter(query.filter), findOptions(query, context)))),
    count: (filter) => translating(() => collection.countDocuments(mongoFilter(filter), timeLimit)),
    groups: (query) =>
      translating(async () => (await collection.aggregate([{ $match: mongoFilter(query.filter) }, ...groupStages(query, shape)], timeLimit).toArray()).map((doc) => groupRow(doc, query))),
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
        return readAll(collection.find({ _id: { $in: valid } }, timeLimit))
      }),
  }
}

/**
 * Every document of a cursor in wire form, each converted as it is read: the engine's cursor counts
 * that time in the slices it lets the event loop run between (a page of 1,000 documents holding
 * 100 ids each is 100,000 conversions), where converting the whole page after reading it was one stretch.
 */
async function readAll(cursor: DriverCursor): Promise<WireDoc[]> {
  const docs: WireDoc[] = []
  for await (const doc of cursor) docs.push(toWire(doc))
  return docs
}
