import type { Document, DriverCollection } from './driver-db.js'

/**
 * One atomic update returning the document after it; an update with nothing to change (`undefined`)
 * is not sent, but the read still reports whether the document (in `filter`) exists. `read` (a
 * projection, the time limit) applies to both; `updating` (array filters) to the update alone.
 */
export function updateOrRead(
  collection: DriverCollection,
  filter: Document,
  update: Document | undefined,
  read: { projection?: Document, maxTimeMS?: number },
  updating: { arrayFilters?: Document[] } = {}
): Promise<Document | null> {
  return update === undefined
    ? collection.findOne(filter, read)
    : collection.findOneAndUpdate(filter, update, { returnDocument: 'after', ...updating, ...read })
}
