import { UUID } from 'mongodb'
import { decodeDocument } from '../../bson/bson-codec.js'
import { toValueKey } from '../../bson/value-key.js'
import type { CollectionCore } from '../../collection/collection-core.js'
import type { Document } from '../../document.js'
import { EmbeddedCollection } from '../../embedded-collection.js'
import type { EmbeddedDb } from '../../embedded-db.js'
import { WireError } from '../wire-error.js'
import type { RoleGrant } from './roles.js'
import { SCRAM_SHA_256, type ScramCredentials } from './scram-sha-256.js'

/** Where users live, as on mongod: one collection of `admin`, whatever database each user belongs to. */
export const USERS_DB = 'admin'
export const USERS_COLLECTION = 'system.users'

/** A user as stored (mongod's shape): its credentials are a salted, stretched key, never the password. */
export interface StoredUser {
  /** `<db>.<user>`. */
  _id: string
  userId: UUID
  user: string
  db: string
  credentials: { [SCRAM_SHA_256]: ScramCredentials }
  roles: RoleGrant[]
  customData?: Document
}

/**
 * The users of one engine, in `admin.system.users`: in the data directory with `--dbpath` (so they
 * outlive the process), in memory without. Clients cannot write that collection (a `system.*`
 * collection: InvalidNamespace, 73); the user commands write it through the collection's own write
 * queue, and a read-through cache, checked against the collection's version before each use, answers
 * the lookups that every authenticated command makes.
 */
export class UserStore {
  readonly #core: CollectionCore
  #cache: { version: number, users: Map<string, StoredUser> } | undefined

  private constructor(core: CollectionCore) {
    this.#core = core
  }

  /** The store of `engine` (one per engine, shared by its wire servers). */
  static of(engine: EmbeddedDb): UserStore {
    let store = stores.get(engine)
    if (!store) {
      store = new UserStore(EmbeddedCollection.coreOf(engine.db(USERS_DB).collection(USERS_COLLECTION)))
      stores.set(engine, store)
    }
    return store
  }

  get(db: string, user: string): StoredUser | undefined {
    return this.#users().get(userKey(db, user))
  }

  /** No user exists: with authentication on, a loopback connection may create the first (the localhost exception). */
  isEmpty(): boolean {
    return this.#users().size === 0
  }

  list(): StoredUser[] {
    return [...this.#users().values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
  }

  /** Stores a new user; a user of that name in that database already: 51003, as mongod. */
  async create(user: Omit<StoredUser, '_id' | 'userId'>): Promise<void> {
    const stored: StoredUser = { _id: userKey(user.db, user.user), userId: new UUID(), ...user }
    try {
      await this.#core.write(() => this.#core.insert(stored as unknown as Document))
    } catch (error) {
      if ((error as { code?: unknown }).code === 11000) throw new WireError(51003, 'Location51003', `User "${user.user}@${user.db}" already exists`)
      throw error
    }
  }

  /** Replaces a user's stored fields; false when it no longer exists. */
  async update(db: string, name: string, change: (user: StoredUser) => StoredUser): Promise<boolean> {
    return this.#core.write(async () => {
      const key = toValueKey(userKey(db, name))
      const found = this.#read(key)
      if (found === undefined) return false
      await this.#core.commit(key, found as unknown as Document, change(found) as unknown as Document, 'replace')
      return true
    })
  }

  /** Removes users (all those `matches` accepts); how many were removed. */
  async remove(matches: (user: StoredUser) => boolean): Promise<number> {
    return this.#core.write(async () => {
      const found = this.list().filter(matches)
      return this.#core.remove(found.map((user) => [toValueKey(user._id), user as unknown as Document]))
    })
  }

  #read(key: string): StoredUser | undefined {
    const bytes = this.#core.storage.get(key)
    return bytes === undefined ? undefined : (decodeDocument(bytes) as unknown as StoredUser)
  }

  /** The users, read again whenever the collection changed since they were read (or a write of it is not committed yet). */
  #users(): Map<string, StoredUser> {
    const version = this.#core.storage.version()
    if (this.#cache !== undefined && version !== undefined && this.#cache.version === version) return this.#cache.users
    const users = new Map<string, StoredUser>()
    for (const [, doc] of this.#core.all()) users.set(String(doc['_id']), doc as unknown as StoredUser)
    if (version !== undefined) this.#cache = { version, users }
    return users
  }
}

const stores = new WeakMap<EmbeddedDb, UserStore>()

function userKey(db: string, user: string): string {
  return `${db}.${user}`
}
