import type { ShapeNode } from '../shapes/model-shape.js'
import { createArrayItems } from './array-items.js'
import { toWire } from './codec.js'
import { type CollectionStoreOptions, collectionContext } from './collection-context.js'
import { collectionReads } from './collection-reads.js'
import { collectionWrites } from './collection-writes.js'
import type { DriverDb } from './driver-db.js'
import type { CollectionStore } from './store.js'
import { watchChanges } from './watch-changes.js'

export type { CollectionStoreOptions }

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
  const context = collectionContext(db, collectionName, shape, options)
  const { collection, ids, timeLimit, stored } = context
  return {
    ...collectionReads(context),
    ...collectionWrites(context),
    asStored: (doc) => toWire(stored(doc)),
    arrayItems: (field, itemShape) => createArrayItems(collection, field, { parent: shape, item: itemShape }, { ids, timeLimit }),
    changes: (from) => watchChanges(collection, from),
  }
}
