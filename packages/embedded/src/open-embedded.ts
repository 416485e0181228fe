import { EmbeddedDb } from './embedded-db.js'
import { LmdbStorage } from './persist/lmdb-storage.js'
import { MemoryStorage } from './persist/memory-storage.js'

export { EmbeddedCollection } from './embedded-collection.js'
export { EmbeddedDb } from './embedded-db.js'

export interface EmbeddedOptions {
  /** A directory for durable storage (created if missing). Without it, data lives in memory. */
  path?: string
}

/** Database name used in namespaces and error messages (`embedded.<collection>`). */
const DATABASE_NAME = 'embedded'

/** Opens the embedded engine: in memory, or durable on disk under `options.path`. */
export async function openEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedDb> {
  const storage = options.path === undefined ? new MemoryStorage() : new LmdbStorage(options.path)
  return new EmbeddedDb(storage, DATABASE_NAME)
}
