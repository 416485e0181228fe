import type { DriverDb } from '../driver-db.js'
import { EmbeddedCollection } from './embedded-collection.js'
import { closedError, invalidArgumentError } from './errors.js'
import type { Storage } from './persist/storage.js'

/**
 * The embedded engine's `Db`: hands out one `EmbeddedCollection` per name (the same object on
 * every call, so its write queue is shared by all callers) over one storage backend.
 */
export class EmbeddedDb implements DriverDb {
  readonly databaseName: string
  readonly #storage: Storage
  readonly #collections = new Map<string, EmbeddedCollection>()
  #open = true

  constructor(storage: Storage, databaseName: string) {
    this.#storage = storage
    this.databaseName = databaseName
  }

  collection(name: string): EmbeddedCollection {
    if (!this.#open) throw closedError()
    if (typeof name !== 'string' || name === '' || name.includes('$') || name.includes('\0')) {
      throw invalidArgumentError(`Invalid collection name: ${JSON.stringify(name)}`)
    }
    let found = this.#collections.get(name)
    if (!found) {
      found = new EmbeddedCollection(this.#storage, this.databaseName, name, () => this.#open)
      this.#collections.set(name, found)
    }
    return found
  }

  /** Deletes every collection and index, with all collections' writers held off meanwhile. */
  async dropDatabase(): Promise<void> {
    if (!this.#open) throw closedError()
    const collections = [...this.#collections.values()]
    const releases = await Promise.all(collections.map((c) => c.queue.hold()))
    try {
      await this.#storage.dropAll()
      for (const collection of collections) collection.reset()
    } finally {
      for (const release of releases) release()
    }
  }

  /** Lets queued writes finish, then closes storage; later calls fail. Idempotent. */
  async close(): Promise<void> {
    if (!this.#open) return
    const collections = [...this.#collections.values()]
    await Promise.all(collections.map((c) => c.queue.drain()))
    this.#open = false
    await this.#storage.close()
  }
}
