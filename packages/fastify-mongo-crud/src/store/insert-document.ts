import type { ObjectIds } from '../shapes/object-id.js'
import { toWire } from './codec.js'
import type { Document, DriverCollection } from './driver-db.js'
import type { WireDoc } from './store.js'

/** Fresh ids tried before a create whose server-chosen ids keep colliding gives up. */
const ID_ATTEMPTS = 3

/** Inserts a stored document, with a fresh id unless it brings its own; the document as inserted, in wire form. */
export async function insertDocument(collection: DriverCollection, document: Document, ids: ObjectIds): Promise<WireDoc> {
  const chosen = document['_id'] !== undefined
  for (let attempt = 1; ; attempt++) {
    const attempted = chosen ? document : { _id: ids.fresh(), ...document }
    try {
      await collection.insertOne(attempted)
      return toWire(attempted)
    } catch (error) {
      // An id the server chose that is taken (a document planted there) is retried with another;
      // a client's own id, or a unique field, stays a duplicate.
      if (chosen || attempt >= ID_ATTEMPTS || !isDuplicateId(error)) throw error
    }
  }
}

/** A duplicate key error on the `_id` index (not on a unique field). */
function isDuplicateId(error: unknown): boolean {
  const { code, keyPattern, message } = (error ?? {}) as { code?: unknown, keyPattern?: Record<string, unknown>, message?: unknown }
  if (code !== 11000) return false
  return keyPattern !== undefined ? Object.keys(keyPattern).join() === '_id' : / index: _id_ /.test(String(message))
}
