import type { ArrayItemsContext } from './array-items-context.js'
import { toStored, toWire } from './codec.js'
import { whileItemUnchanged } from './compare-and-swap.js'
import type { Document } from './driver-db.js'
import { translatingWrite } from './map-driver-error.js'
import type { ArrayItems } from './store.js'
import { updateOrRead } from './update-or-read.js'

type ArrayItemWrites = Pick<ArrayItems, 'push' | 'update' | 'replace' | 'pull'>

/** The write half of an embed's items: each write is one atomic update of the parent. */
export function arrayItemWrites({ collection, field, shapes, ids, timeLimit, itemsIn, oid, parentFilter }: ArrayItemsContext): ArrayItemWrites {
  return {
    push: (parent, item) =>
      translatingWrite(async () => {
        const stored = toStored(item, shapes.item, ids) as Document
        // Ids the server chooses cannot be guessed, so no client can plant an item at the next one.
        if (stored['_id'] === undefined) stored['_id'] = ids.fresh()
        // The `$ne` guard makes an id that already exists a no-op instead of a duplicate.
        const filter = { ...parentFilter(parent), [`${field}._id`]: { $ne: stored['_id'] } }
        const result = await collection.updateOne(filter, { $push: { [field]: stored } }, timeLimit)
        return result.matchedCount === 1 ? toWire(stored) : undefined
      }),
    update: (parent, itemId, changes, unchanged = undefined) =>
      translatingWrite(async () => {
        const id = oid(itemId)
        if (id === undefined) return undefined
        const set: Document = {}
        for (const [key, value] of Object.entries(toStored(changes, shapes.item, ids) as Document)) {
          if (key !== '_id') set[`${field}.$[item].${key}`] = value
        }
        const filter = whileItemUnchanged({ ...parentFilter(parent), [`${field}._id`]: id }, field, unchanged)
        const projection = { [field]: { $elemMatch: { _id: id } } }
        const update = Object.keys(set).length === 0 ? undefined : { $set: set }
        const after = await updateOrRead(collection, filter, update, { projection, ...timeLimit }, { arrayFilters: [{ 'item._id': id }] })
        const item = itemsIn(after)?.[0]
        return item === undefined ? undefined : toWire(item)
      }),
    replace: (parent, itemId, item, unchanged = undefined) =>
      translatingWrite(async () => {
        const id = oid(itemId)
        if (id === undefined) return undefined
        const { _id: _ignored, ...fields } = toStored(item, shapes.item, ids) as Document
        const filter = whileItemUnchanged({ ...parentFilter(parent), [`${field}._id`]: id }, field, unchanged)
        const projection = { [field]: { $elemMatch: { _id: id } } }
        const update = { $set: { [`${field}.$[item]`]: { _id: id, ...fields } } }
        const after = await updateOrRead(collection, filter, update, { projection, ...timeLimit }, { arrayFilters: [{ 'item._id': id }] })
        const found = itemsIn(after)?.[0]
        return found === undefined ? undefined : toWire(found)
      }),
    pull: (parent, itemId, unchanged = undefined) =>
      translatingWrite(async () => {
        const id = oid(itemId)
        if (id === undefined) return false
        const filter = whileItemUnchanged({ ...parentFilter(parent), [`${field}._id`]: id }, field, unchanged)
        const result = await collection.updateOne(filter, { $pull: { [field]: { _id: id } } }, timeLimit)
        return result.matchedCount === 1
      }),
  }
}
