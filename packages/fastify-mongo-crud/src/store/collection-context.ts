import type { Filter } from '../query/filter.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { type ObjectIds, objectIdsFor } from '../shapes/object-id.js'
import { toStored } from './codec.js'
import type { Document, DriverCollection, DriverDb } from './driver-db.js'
import { sessionBound } from './session-scope.js'
import type { WireDoc } from './store.js'
import { toMongoFilter, toMongoPath } from './to-mongo-filter.js'

export interface CollectionStoreOptions {
  /** Server-side time limit of every query. */
  maxTimeMS?: number | undefined
}

/** What the reads and the writes of one collection's store share, built once per store. */
export interface CollectionContext {
  readonly collection: DriverCollection
  readonly shape: ShapeNode
  readonly ids: ObjectIds
  /** The options every query carries: `{}` or `{ maxTimeMS }`. */
  readonly timeLimit: { maxTimeMS?: number }
  /** A wire document as stored (`_id`, the model's ObjectIds in the driver's bson). */
  stored(doc: WireDoc): Document
  mongoFilter(filter: Filter | undefined): Document
  /** `fields=` pushed down: the database reads and sends only these (`_id` is always included). */
  projection(fields: readonly string[]): Document
}

export function collectionContext(db: DriverDb, collectionName: string, shape: ShapeNode, options: CollectionStoreOptions): CollectionContext {
  // Calls carry the session of the atomic batch they run in, if any (session-scope.ts).
  const collection = sessionBound(db, db.collection(collectionName))
  // Ids are written in the bson of the driver behind `db`, whichever major it is (object-id.ts).
  const ids = objectIdsFor(db)
  return {
    collection,
    shape,
    ids,
    timeLimit: options.maxTimeMS === undefined ? {} : { maxTimeMS: options.maxTimeMS },
    stored: (doc) => toStored(doc, shape, ids) as Document,
    mongoFilter: (filter) => toMongoFilter(filter, shape, ids),
    projection: (fields) => Object.fromEntries(fields.map((field) => [toMongoPath(field, shape), 1])),
  }
}
