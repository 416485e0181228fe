import type { CollectionStorage, WriteBatch } from '../storage/storage.js'
import { encodeChange } from './change-entry.js'

/**
 * The change log entries of a batch written whole (a transaction's commit, which applies the net
 * effect of its writes): each document put is an insert or, when one is stored under its key, an
 * update; each removal a delete. Read before the batch applies, inside its storage transaction.
 */
export function changesOfBatch(storage: CollectionStorage, storageName: string, batch: WriteBatch): Uint8Array[] {
  const changes: Uint8Array[] = []
  for (const key of batch.removes ?? []) {
    const before = storage.get(key)
    if (before !== undefined) changes.push(encodeChange('delete', storageName, undefined, before))
  }
  for (const [key, after] of batch.puts ?? []) {
    const before = storage.get(key)
    changes.push(encodeChange(before === undefined ? 'insert' : 'update', storageName, after, before))
  }
  return changes
}
