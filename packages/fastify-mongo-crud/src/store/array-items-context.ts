import type { Filter } from '../query/filter.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { isObjectIdHex, type ObjectIds } from '../shapes/object-id.js'
import type { Document, DriverCollection } from './driver-db.js'
import { toMongoFilter } from './to-mongo-filter.js'

/** What the reads and the writes of one embed's items share, built once per `arrayItems` call. */
export interface ArrayItemsContext {
  readonly collection: DriverCollection
  /** The parent's array field holding the items. */
  readonly field: string
  readonly shapes: { readonly parent: ShapeNode, readonly item: ShapeNode }
  readonly ids: ObjectIds
  readonly timeLimit: { maxTimeMS?: number }
  /** The items of a parent as read (undefined when no parent was found; none when the field is no array). */
  itemsIn(parent: Document | null): Document[] | undefined
  /** The ObjectId of an item id; undefined when it is not one (no stored item can have it). */
  oid(hex: string): unknown
  parentFilter(parent: Filter): Document
}

export function arrayItemsContext(
  collection: DriverCollection,
  field: string,
  shapes: { parent: ShapeNode, item: ShapeNode },
  { ids, timeLimit }: { ids: ObjectIds, timeLimit: { maxTimeMS?: number } }
): ArrayItemsContext {
  return {
    collection,
    field,
    shapes,
    ids,
    timeLimit,
    itemsIn: (parent) => {
      if (parent === null) return undefined
      const items = parent[field]
      return Array.isArray(items) ? (items as Document[]) : []
    },
    oid: (hex) => (isObjectIdHex(hex) ? ids.fromHex(hex) : undefined),
    parentFilter: (parent) => toMongoFilter(parent, shapes.parent, ids),
  }
}
