import { ObjectId } from 'mongodb'
import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'
import type { ShapeNode } from '../schema/model-shape.js'
import { toStored, toWire } from './codec.js'
import type { Document, DriverCollection } from './driver-db.js'
import { compileFilter } from './embedded/compile-filter.js'
import { SortedCollector } from './embedded/sort-documents.js'
import { translating } from './map-driver-error.js'
import { newObjectId } from './new-object-id.js'
import type { ArrayItems, WireDoc } from './store.js'
import { toMongoFilter } from './to-mongo-filter.js'

/**
 * Items of an array of sub-documents stored inside a parent (embeds). Every write is one atomic
 * update on the parent (`$push`, `$set` with an array filter, `$pull`), so concurrent writers never
 * lose each other's items. Reads load the parent once and query its items with MongoDB semantics.
 */
export function createArrayItems(
  collection: DriverCollection,
  field: string,
  itemShape: ShapeNode,
  timeLimit: { maxTimeMS?: number }
): ArrayItems {
  const itemsOf = (parent: Document | null): Document[] | undefined => {
    if (parent === null) return undefined
    const items = parent[field]
    return Array.isArray(items) ? (items as Document[]) : []
  }
  const findParent = (parent: Filter) => collection.findOne(toMongoFilter(parent), { projection: { [field]: 1 }, ...timeLimit })
  const oid = (hex: string) => (ObjectId.isValid(hex) && hex.length === 24 ? ObjectId.createFromHexString(hex) : undefined)

  return {
    list: (parent, query: ListQuery) =>
      translating(async () => {
        const items = itemsOf(await findParent(parent))
        if (items === undefined) return undefined
        const matches = compileFilter(toMongoFilter(query.filter))
        let selected = items.filter((item) => matches(item))
        if (query.sort !== undefined) {
          const sorter = new SortedCollector({ [query.sort.path]: query.sort.direction })
          for (const item of selected) sorter.add(item)
          selected = sorter.result()
        }
        const end = query.limit === undefined ? undefined : query.skip + query.limit
        return selected.slice(query.skip, end).map(toWire)
      }),
    get: (parent, itemId) =>
      translating(async () => {
        const items = itemsOf(await findParent(parent))
        if (items === undefined) return undefined
        const id = oid(itemId)
        const item = id === undefined ? undefined : items.find((i) => id.equals(i['_id'] as ObjectId))
        return { item: item === undefined ? undefined : toWire(item) }
      }),
    push: (parent, item) =>
      translating(async () => {
        const stored = toStored(item, itemShape) as Document
        // Ids the server chooses cannot be guessed, so no client can plant an item at the next one.
        if (stored['_id'] === undefined) stored['_id'] = newObjectId()
        // The `$ne` guard makes an id that already exists a no-op instead of a duplicate.
        const filter = { ...toMongoFilter(parent), [`${field}._id`]: { $ne: stored['_id'] } }
        const result = await collection.updateOne(filter, { $push: { [field]: stored } }, timeLimit)
        return result.matchedCount === 1 ? toWire(stored) : undefined
      }),
    update: (parent, itemId, changes) =>
      translating(async () => {
        const id = oid(itemId)
        if (id === undefined) return undefined
        const set: Document = {}
        for (const [key, value] of Object.entries(toStored(changes, itemShape) as Document)) {
          if (key !== '_id') set[`${field}.$[item].${key}`] = value
        }
        const filter = { ...toMongoFilter(parent), [`${field}._id`]: id }
        const after = Object.keys(set).length === 0
          ? await collection.findOne(filter, timeLimit)
          : await collection.findOneAndUpdate(filter, { $set: set }, { returnDocument: 'after', arrayFilters: [{ 'item._id': id }], ...timeLimit })
        const item = itemsOf(after)?.find((i) => id.equals(i['_id'] as ObjectId))
        return item === undefined ? undefined : toWire(item)
      }),
    pull: (parent, itemId) =>
      translating(async () => {
        const id = oid(itemId)
        if (id === undefined) return false
        const filter = { ...toMongoFilter(parent), [`${field}._id`]: id }
        const result = await collection.updateOne(filter, { $pull: { [field]: { _id: id } } }, timeLimit)
        return result.matchedCount === 1
      }),
  }
}

export type { WireDoc }
