import { setImmediate as nextLoopTurn } from 'node:timers/promises'
import { ID_INDEX } from '../indexes/index-catalog.js'
import type { CollectionStorage } from '../storage/storage.js'
import type { CollectionCore } from './collection-core.js'

/** A collection's documents and the bytes they and their index entries take. */
export interface CollectionSizes {
  count: number
  /** The documents' BSON bytes. */
  size: number
  /** Per index, its entries' bytes: for `_id_`, the storage keys (the engine keys documents by their `_id`). */
  indexSizes: Record<string, number>
}

/** Steps of a walk between two turns of the event loop: a collection of millions is measured without holding it. */
const STEPS_PER_TURN = 10_000

/** The sizes measured at a version of each collection's storage, reused while nothing changed. */
const measured = new WeakMap<CollectionStorage, { version: number, sizes: CollectionSizes }>()

/**
 * Measures a collection by walking its documents and its index entries (what `collStats`, `dbStats`
 * and `listDatabases` report). The engine keeps no running totals, so this is a walk; it lets the event
 * loop run every 10,000 steps, and its answer is kept until the collection next changes. The sizes are
 * those of the stored bytes, not of pages on disk: LMDB's pages are shared by every collection.
 */
export async function collectionSizes(core: CollectionCore): Promise<CollectionSizes> {
  const storage = core.storage
  const version = storage.version()
  const known = measured.get(storage)
  if (known !== undefined && version !== undefined && known.version === version) return known.sizes
  let count = 0
  let size = 0
  let idSize = 0
  let steps = 0
  const documents = storage.visit((bytes) => bytes.byteLength)
  try {
    for (let next = documents.next(); !next.done; next = documents.next()) {
      const [key, length] = next.value
      count++
      size += length
      idSize += Buffer.byteLength(key)
      if (++steps % STEPS_PER_TURN === 0) await nextLoopTurn()
    }
  } finally {
    documents.return?.()
  }
  const indexSizes: Record<string, number> = { [ID_INDEX]: idSize }
  for (const index of core.indexes.list()) {
    let bytes = 0
    const entries = storage.indexRange(index.name, {})
    try {
      for (let next = entries.next(); !next.done; next = entries.next()) {
        const [entryKey, docKey] = next.value
        bytes += entryKey.byteLength + Buffer.byteLength(docKey)
        if (++steps % STEPS_PER_TURN === 0) await nextLoopTurn()
      }
    } finally {
      entries.return?.()
    }
    indexSizes[index.name] = bytes
  }
  const sizes = { count, size, indexSizes }
  if (version !== undefined && storage.version() === version) measured.set(storage, { version, sizes })
  return sizes
}
