import { toWire } from './codec.js'
import type { CollectionContext } from './collection-context.js'
import { whileUnchanged } from './compare-and-swap.js'
import type { Document } from './driver-db.js'
import { insertDocument } from './insert-document.js'
import { translating, translatingWrite } from './map-driver-error.js'
import type { CollectionStore } from './store.js'
import { updateOrRead } from './update-or-read.js'

type CollectionWrites = Pick<CollectionStore, 'insert' | 'replace' | 'update' | 'remove' | 'removeMany' | 'ensureIndex'>

/** The write half of a collection's store: each write is one atomic operation on one collection. */
export function collectionWrites({ collection, shape, ids, timeLimit, stored, mongoFilter }: CollectionContext): CollectionWrites {
  const modelFields = shape.kind === 'object' ? [...shape.fields.keys()] : []
  return {
    insert: (doc) => translatingWrite(() => insertDocument(collection, stored(doc), ids)),
    replace: (filter, doc, keep = [], unchanged = undefined) =>
      translatingWrite(async () => {
        const { _id: _ignored, ...replacement } = stored(doc)
        const selected = whileUnchanged(mongoFilter(filter), unchanged)
        // Set what was sent and unset the model's other fields, in one atomic update: fields the model
        // does not declare (embedded arrays, another API version's fields) are kept.
        const unset = modelFields.filter((name) => !(name in replacement) && !keep.includes(name) && name !== '_id')
        const update: Document = { $set: replacement }
        if (unset.length > 0) update['$unset'] = Object.fromEntries(unset.map((name) => [name, '']))
        const changes = Object.keys(replacement).length === 0 && unset.length === 0 ? undefined : update
        const after = await updateOrRead(collection, selected, changes, timeLimit)
        return after === null ? undefined : toWire(after)
      }),
    update: (filter, changes, unchanged = undefined) =>
      translatingWrite(async () => {
        const update: Document = {}
        const set = stored(changes.set)
        delete set['_id']
        if (Object.keys(set).length > 0) update['$set'] = set
        if (changes.unset !== undefined && changes.unset.length > 0) {
          update['$unset'] = Object.fromEntries(changes.unset.map((path) => [path, '']))
        }
        const selected = whileUnchanged(mongoFilter(filter), unchanged)
        // An empty PATCH changes nothing but must still report whether the document exists.
        const after = await updateOrRead(collection, selected, Object.keys(update).length === 0 ? undefined : update, timeLimit)
        return after === null ? undefined : toWire(after)
      }),
    remove: (filter, unchanged = undefined) =>
      translatingWrite(async () => (await collection.deleteOne(whileUnchanged(mongoFilter(filter), unchanged), timeLimit)).deletedCount === 1),
    removeMany: (filter) => translatingWrite(async () => (await collection.deleteMany(mongoFilter(filter), timeLimit)).deletedCount),
    ensureIndex: (index) =>
      translating(async () => {
        await collection.createIndex({ ...index.key }, { unique: index.unique, ...(index.name === undefined ? {} : { name: index.name }) })
      }),
  }
}
