import type { ShapeNode } from '../shapes/model-shape.js'
import type { ObjectIds } from '../shapes/object-id.js'
import { arrayItemReads } from './array-item-reads.js'
import { arrayItemWrites } from './array-item-writes.js'
import { arrayItemsContext } from './array-items-context.js'
import type { DriverCollection } from './driver-db.js'
import type { ArrayItems, WireDoc } from './store.js'

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
  options: { ids: ObjectIds, timeLimit: { maxTimeMS?: number } }
): ArrayItems {
  const context = arrayItemsContext(collection, field, shapes, options)
  return { ...arrayItemReads(context), ...arrayItemWrites(context) }
}

export type { WireDoc }
