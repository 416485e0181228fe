import type { Filter } from '../query/filter.js'
import type { ArrayItemsContext } from './array-items-context.js'
import { itemsPipeline } from './array-items-pipeline.js'
import { toWire } from './codec.js'
import type { Document } from './driver-db.js'
import { groupRow, groupStages } from './group-pipeline.js'
import { translating, translatingCursor } from './map-driver-error.js'
import type { ArrayItems } from './store.js'

type ArrayItemReads = Pick<ArrayItems, 'find' | 'list' | 'groups' | 'hasParent' | 'get' | 'snapshot'>

/** The read half of an embed's items: lists run as an aggregation, one item is read by `$elemMatch`. */
export function arrayItemReads(context: ArrayItemsContext): ArrayItemReads {
  const { collection, timeLimit, parentFilter } = context
  return {
    find: (parent, query) => translating(async () => (await collection.aggregate(itemsPipeline(parent, query, context), timeLimit).toArray()).map(toWire)),
    list: (parent, query) => translatingCursor(() => collection.aggregate(itemsPipeline(parent, query, context), timeLimit), toWire),
    groups: (parent, query) =>
      translating(async () => {
        const pipeline = [...itemsPipeline(parent, { filter: query.filter, skip: 0 }, context), ...groupStages(query, context.shapes.item)]
        return (await collection.aggregate(pipeline, timeLimit).toArray()).map((doc) => groupRow(doc, query))
      }),
    hasParent: (parent) => translating(async () => (await collection.findOne(parentFilter(parent), { projection: { _id: 1 }, ...timeLimit })) !== null),
    get: (parent, itemId) =>
      translating(async () => {
        const found = await readItem(context, parent, itemId)
        return found === undefined ? undefined : { item: found.item === undefined ? undefined : toWire(found.item) }
      }),
    snapshot: (parent, itemId) =>
      translating(async () => {
        const found = await readItem(context, parent, itemId)
        return found === undefined ? undefined : { item: found.item === undefined ? undefined : { doc: toWire(found.item), stored: found.item } }
      }),
  }
}

/** The parent (undefined when missing) and the stored item (undefined when the parent lacks it). */
async function readItem(
  { collection, field, timeLimit, itemsIn, oid, parentFilter }: ArrayItemsContext,
  parent: Filter,
  itemId: string
): Promise<{ item: Document | undefined } | undefined> {
  const id = oid(itemId)
  const found = await collection.findOne(parentFilter(parent), { projection: id === undefined ? { _id: 1 } : { [field]: { $elemMatch: { _id: id } } }, ...timeLimit })
  if (found === null) return undefined
  return { item: itemsIn(found)?.[0] }
}
