import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'
import type { ShapeNode } from '../schema/model-shape.js'
import { toStored, toWire } from './codec.js'
import { whileItemUnchanged } from './compare-and-swap.js'
import type { Document, DriverCollection } from './driver-db.js'
import { translating, translatingCursor } from './map-driver-error.js'
import { isObjectIdHex, type ObjectIds } from './object-id.js'
import type { ArrayItems, WireDoc } from './store.js'
import { toMongoFilter, toMongoPath } from './to-mongo-filter.js'

/**
 * Items of an array of sub-documents stored inside a parent (embeds). Every write is one atomic
 * update on the parent (`$push`, `$set` with an array filter, `$pull`), so concurrent writers never
 * lose each other's items. Reads run in the database: an aggregation unwinds the one parent's items
 * and filters, sorts and pages them there, so MongoDB and the engine answer alike and only the page
 * travels; reads and writes of one item project that item alone (`$elemMatch`).
 */
export function createArrayItems(
  collection: DriverCollection,
  field: string,
  shapes: { parent: ShapeNode, item: ShapeNode },
  { ids, timeLimit }: { ids: ObjectIds, timeLimit: { maxTimeMS?: number } }
): ArrayItems {
  const itemsIn = (parent: Document | null): Document[] | undefined => {
    if (parent === null) return undefined
    const items = parent[field]
    return Array.isArray(items) ? (items as Document[]) : []
  }
  const oid = (hex: string) => (isObjectIdHex(hex) ? ids.fromHex(hex) : undefined)
  const parentFilter = (parent: Filter) => toMongoFilter(parent, shapes.parent, ids)

  /** The one parent's items, filtered, sorted and paged by the database. */
  function itemsPipeline(parent: Filter, query: ListQuery): Document[] {
    const pipeline: Document[] = [
      { $match: parentFilter(parent) },
      { $limit: 1 },
      // A misfit (a scalar or a missing field where the array should be) lists as no items.
      { $project: { _id: 0, item: { $cond: [{ $isArray: `$${field}` }, `$${field}`, []] } } },
      { $unwind: '$item' },
      { $match: { item: { $type: 'object' } } },
      { $replaceRoot: { newRoot: '$item' } },
      { $match: toMongoFilter(query.filter, shapes.item, ids) },
    ]
    if (query.sort !== undefined) pipeline.push({ $sort: { [toMongoPath(query.sort.path, shapes.item)]: query.sort.direction } })
    if (query.skip > 0) pipeline.push({ $skip: query.skip })
    if (query.limit !== undefined) pipeline.push({ $limit: query.limit })
    return pipeline
  }

  /** The parent (undefined when missing) and the stored item (undefined when the parent lacks it). */
  async function readItem(parent: Filter, itemId: string): Promise<{ item: Document | undefined } | undefined> {
    const id = oid(itemId)
    const found = await collection.findOne(parentFilter(parent), { projection: id === undefined ? { _id: 1 } : { [field]: { $elemMatch: { _id: id } } }, ...timeLimit })
    if (found === null) return undefined
    return { item: itemsIn(found)?.[0] }
  }

  return {
    find: (parent, query) => translating(async () => (await collection.aggregate(itemsPipeline(parent, query), timeLimit).toArray()).map(toWire)),
    list: (parent, query) => translatingCursor(collection.aggregate(itemsPipeline(parent, query), timeLimit), toWire),
    hasParent: (parent) => translating(async () => (await collection.findOne(parentFilter(parent), { projection: { _id: 1 }, ...timeLimit })) !== null),
    get: (parent, itemId) =>
      translating(async () => {
        const found = await readItem(parent, itemId)
        return found === undefined ? undefined : { item: found.item === undefined ? undefined : toWire(found.item) }
      }),
    snapshot: (parent, itemId) =>
      translating(async () => {
        const found = await readItem(parent, itemId)
        return found === undefined ? undefined : { item: found.item === undefined ? undefined : { doc: toWire(found.item), stored: found.item } }
      }),
    push: (parent, item) =>
      translating(async () => {
        const stored = toStored(item, shapes.item, ids) as Document
        // Ids the server chooses cannot be guessed, so no client can plant an item at the next one.
        if (stored['_id'] === undefined) stored['_id'] = ids.fresh()
        // The `$ne` guard makes an id that already exists a no-op instead of a duplicate.
        const filter = { ...parentFilter(parent), [`${field}._id`]: { $ne: stored['_id'] } }
        const result = await collection.updateOne(filter, { $push: { [field]: stored } }, timeLimit)
        return result.matchedCount === 1 ? toWire(stored) : undefined
      }),
    update: (parent, itemId, changes, unchanged = undefined) =>
      translating(async () => {
        const id = oid(itemId)
        if (id === undefined) return undefined
        const set: Document = {}
        for (const [key, value] of Object.entries(toStored(changes, shapes.item, ids) as Document)) {
          if (key !== '_id') set[`${field}.$[item].${key}`] = value
        }
        const filter = whileItemUnchanged({ ...parentFilter(parent), [`${field}._id`]: id }, field, unchanged)
        const projection = { [field]: { $elemMatch: { _id: id } } }
        const after = Object.keys(set).length === 0
          ? await collection.findOne(filter, { projection, ...timeLimit })
          : await collection.findOneAndUpdate(filter, { $set: set }, { returnDocument: 'after', arrayFilters: [{ 'item._id': id }], projection, ...timeLimit })
        const item = itemsIn(after)?.[0]
        return item === undefined ? undefined : toWire(item)
      }),
    pull: (parent, itemId, unchanged = undefined) =>
      translating(async () => {
        const id = oid(itemId)
        if (id === undefined) return false
        const filter = whileItemUnchanged({ ...parentFilter(parent), [`${field}._id`]: id }, field, unchanged)
        const result = await collection.updateOne(filter, { $pull: { [field]: { _id: id } } }, timeLimit)
        return result.matchedCount === 1
      }),
  }
}

export type { WireDoc }
