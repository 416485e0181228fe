import { decodeDocument } from '../bson/bson-codec.js'
import { checkFieldPath } from '../check-field-path.js'
import type { Document } from '../document.js'
import { cannotCreateIndexError, duplicateKeyError, duplicatesOnDiskError, indexConflictError, invalidArgumentError } from '../errors.js'
import type { CollectionStorage, IndexEntry, Storage, StoredIndex } from '../storage/storage.js'
import { concatBytes, END_PAD, encodeValue, entryPrefixOf, type IndexKey, indexKeysOf } from './index-keys.js'

export const ID_INDEX = '_id_'

/**
 * The format of the entries' keys (index-keys.ts): 2 puts the `_id` between the index key and the
 * storage key. An index stored without it (or with another) is rebuilt like an unbuilt one.
 */
export const ENTRY_FORMAT = 2

/** An index as the planner and the write path use it. */
export interface LiveIndex {
  name: string
  fields: [string, 1 | -1][]
  unique: boolean
  multikey: boolean
}

/** The index entry changes (and new definitions, when a multikey flag turns on) of one write. */
interface EntryChanges {
  addEntries: IndexEntry[]
  removeEntries: IndexEntry[]
  indexes?: StoredIndex[]
}

/**
 * A collection's secondary indexes: their definitions (in the catalog) and their entries (in
 * storage, written in the same transaction as the documents they index; see index-keys.ts for
 * the key encoding). Definitions are read once; an index defined before entries were stored
 * (`built` absent), or whose entries have an earlier key format (`format`), is rebuilt from the
 * documents, in the write queue, before the next write, and is not used by reads until then. Unique indexes are enforced by looking up the new keys' entries.
 */
export class IndexCatalog {
  readonly #storage: Storage
  readonly #documents: CollectionStorage
  readonly #collection: string
  readonly #ns: string
  #defined: StoredIndex[] | undefined
  /** Why the pending indexes cannot be built (duplicates under a unique one): every use fails with it. */
  #failure: Error | undefined
  /** The pending unique indexes were checked against the documents (reads may run before the build). */
  #checked = false

  constructor(storage: Storage, collection: string, ns: string) {
    this.#storage = storage
    this.#documents = storage.collection(collection)
    this.#collection = collection
    this.#ns = ns
  }

  #definitions(): StoredIndex[] {
    this.#defined ??= this.#storage.readIndexes(this.#collection)
    return this.#defined
  }

  /** Whether some index still needs its entries built from the documents. */
  get needsBuild(): boolean {
    return this.#definitions().some((d) => !isCurrent(d))
  }

  /** The indexes whose entries are complete, for the planner. */
  usable(): LiveIndex[] {
    return this.#definitions().filter(isCurrent).map(toLive)
  }

  /**
   * Throws the build failure, if any; checks pending unique indexes for duplicates first, so a
   * read fails like a write on a collection whose index cannot be built, before the build ran.
   */
  assertBuildable(documents: () => Iterable<[string, Document]>): void {
    if (this.#failure) throw this.#failure
    if (this.#checked || !this.needsBuild) return
    try {
      for (const definition of this.#definitions()) {
        if (!isCurrent(definition) && definition.unique) this.#entriesOf(toLive(definition), documents, (keyValue) => duplicatesOnDiskError(this.#ns, definition.name, keyValue))
      }
    } catch (error) {
      this.#failure = error as Error
      throw error
    }
    this.#checked = true
  }

  /**
   * Builds the entries of indexes that have none yet (defined before entries were stored). Two
   * documents with one key of a unique index fail the build, and so every write, until the index
   * is dropped: keeping one owner would let lookups miss the other document.
   */
  async build(documents: () => Iterable<[string, Document]>): Promise<void> {
    if (this.#failure) throw this.#failure
    const pending = this.#definitions().filter((d) => !isCurrent(d))
    if (pending.length === 0) return
    const built = new Map<string, StoredIndex>()
    const addEntries: IndexEntry[] = []
    for (const definition of pending) {
      const { entries, multikey } = this.#entriesOf(toLive(definition), documents, (keyValue) => {
        this.#failure = duplicatesOnDiskError(this.#ns, definition.name, keyValue)
        return this.#failure
      })
      await this.#documents.clearIndex(definition.name)
      addEntries.push(...entries)
      built.set(definition.name, { ...definition, multikey, built: true, format: ENTRY_FORMAT })
    }
    const indexes = this.#definitions().map((d) => built.get(d.name) ?? d)
    await this.#documents.write({ addEntries, indexes })
    this.#defined = indexes
  }

  /** Every entry of one index over the documents; a unique index refuses two owners of one key. */
  #entriesOf(index: LiveIndex, documents: () => Iterable<[string, Document]>, duplicate: (keyValue: Record<string, unknown>) => Error): { entries: IndexEntry[], multikey: boolean } {
    const owners = new Map<string, string>()
    const entries: IndexEntry[] = []
    let multikey = false
    for (const [docKey, doc] of documents()) {
      const keys = indexKeysOf(doc, index.fields)
      if (keys.multikey) multikey = true
      for (const key of keys.keys) {
        if (index.unique) {
          const owner = owners.get(key.canonical)
          if (owner !== undefined && owner !== docKey) throw duplicate(key.keyValue)
          owners.set(key.canonical, docKey)
        }
        entries.push({ index: index.name, key: entryPrefixOf(key.bytes, doc['_id']), docKey })
      }
    }
    return { entries, multikey }
  }

  /**
   * The entry changes that turn `before`'s entries into `after`'s (either absent for an insert
   * or a removal), refusing a key of a unique index that another document holds.
   */
  changesFor(docKey: string, before: Document | undefined, after: Document | undefined): EntryChanges {
    const changes: EntryChanges = { addEntries: [], removeEntries: [] }
    const flagged = new Set<string>()
    // The `_id` never changes: entries differ where their index keys do.
    const id = (after ?? before)?.['_id']
    let idBytes: Uint8Array | undefined
    const entryOf = (index: LiveIndex, key: IndexKey): IndexEntry => {
      idBytes ??= encodeValue(id)
      return { index: index.name, key: concatBytes([key.bytes, idBytes]), docKey }
    }
    for (const definition of this.#definitions()) {
      const index = toLive(definition)
      const old = before ? indexKeysOf(before, index.fields).keys : []
      const next = after ? indexKeysOf(after, index.fields) : { keys: [], multikey: false }
      if (next.multikey && !index.multikey) flagged.add(index.name)
      for (const key of keysNotIn(next.keys, old)) {
        if (index.unique) this.#checkUnique(index, key, docKey)
        changes.addEntries.push(entryOf(index, key))
      }
      for (const key of keysNotIn(old, next.keys)) changes.removeEntries.push(entryOf(index, key))
    }
    if (flagged.size > 0) changes.indexes = this.#definitions().map((d) => (flagged.has(d.name) ? { ...d, multikey: true } : d))
    return changes
  }

  /** Records definitions a write just stored (a multikey flag). */
  applied(changes: EntryChanges): void {
    if (changes.indexes) this.#defined = changes.indexes
  }

  /** Another document holding `key`: its entries share the key bytes, then its values must be equal. */
  #checkUnique(index: LiveIndex, key: IndexKey, docKey: string): void {
    const walk = this.#documents.indexRange(index.name, { start: key.bytes, end: concatBytes([key.bytes, END_PAD]) })
    try {
      for (let next = walk.next(); !next.done; next = walk.next()) {
        const owner = next.value[1]
        if (owner === docKey) continue
        const bytes = this.#documents.get(owner)
        // Long strings are cut in keys: equal bytes may still be different values.
        if (bytes && indexKeysOf(decodeDocument(bytes), index.fields).keys.some((other) => other.canonical === key.canonical)) {
          throw duplicateKeyError(this.#ns, index.name, key.keyValue)
        }
      }
    } finally {
      walk.return?.()
    }
  }

  /** Creates (or finds, when identical) an index, with its entries; a new unique index is checked against the data. */
  async create(key: Record<string, 1 | -1>, options: { unique?: boolean, name?: string }, documents: () => Iterable<[string, Document]>): Promise<string> {
    const fields = Object.keys(key)
    if (fields.length === 0 || Object.values(key).some((dir) => dir !== 1 && dir !== -1)) {
      throw invalidArgumentError(`Index keys must be a non-empty object of 1 or -1, got ${JSON.stringify(key)}`)
    }
    for (const field of fields) checkFieldPath(field)
    const name = options.name ?? fields.map((f) => `${f}_${key[f]}`).join('_')
    // Entries are stored under the index's name and a 0 byte (lmdb-storage.ts): with a NUL in it,
    // one index's entries would fall inside another's range (`a` and `a\0b`).
    if (name === '' || name.includes('\0')) throw cannotCreateIndexError(`The index name ${JSON.stringify(name)} is invalid: it must be non-empty and hold no NUL byte`)
    const unique = options.unique === true
    if (fields.length === 1 && fields[0] === '_id') return ID_INDEX
    const existing = this.#definitions().find((d) => d.name === name || sameKey(d.key, key))
    if (existing) {
      if (existing.name === name && sameKey(existing.key, key) && existing.unique === unique) return name
      throw indexConflictError(`An existing index has the same name or key as the requested index. Requested index: { name: "${name}" }, existing index: { name: "${existing.name}" }`)
    }
    const definition: StoredIndex = { name, key, unique }
    const { entries, multikey } = this.#entriesOf(toLive(definition), documents, (keyValue) => duplicateKeyError(this.#ns, name, keyValue))
    // Entries left by an earlier index of this name (dropped without clearing) must not linger.
    await this.#documents.clearIndex(name)
    const indexes = [...this.#definitions(), { ...definition, multikey, built: true, format: ENTRY_FORMAT }]
    await this.#documents.write({ addEntries: entries, indexes })
    this.#defined = indexes
    return name
  }

  /** The stored definitions (the `_id` index is implicit and not among them). */
  list(): StoredIndex[] {
    return this.#storage.readIndexes(this.#collection).map(({ name, key, unique }) => ({ name, key, unique }))
  }

  /** Drops one index by name, or every index but `_id`'s with `*`; false when none matched. */
  async drop(name: string): Promise<boolean> {
    // From storage: dropping an index is how duplicates that fail `build` get repaired.
    const defined = this.#storage.readIndexes(this.#collection)
    const kept = name === '*' ? [] : defined.filter((d) => d.name !== name)
    if (kept.length === defined.length && name !== '*') return false
    await this.#storage.writeIndexes(this.#collection, kept)
    this.#defined = kept
    this.#failure = undefined
    this.#checked = false
    for (const dropped of defined) if (!kept.includes(dropped)) await this.#documents.clearIndex(dropped.name)
    return true
  }

  clear(): void {
    this.#defined = undefined
    this.#failure = undefined
    this.#checked = false
  }
}

/** Entries built, in the current key format. */
function isCurrent(definition: StoredIndex): boolean {
  return definition.built === true && definition.format === ENTRY_FORMAT
}

/** Each definition's live form, made once: definitions are replaced, never changed in place. */
const LIVE = new WeakMap<StoredIndex, LiveIndex>()

function toLive(definition: StoredIndex): LiveIndex {
  let live = LIVE.get(definition)
  if (live === undefined) {
    live = liveOf(definition)
    LIVE.set(definition, live)
  }
  return live
}

function liveOf(definition: StoredIndex): LiveIndex {
  return {
    name: definition.name,
    fields: Object.entries(definition.key).map(([field, dir]) => [field, dir === -1 ? -1 : 1]),
    unique: definition.unique,
    multikey: definition.multikey === true,
  }
}

/** The keys of `keys` whose bytes no key of `others` has: compared one by one when few (a scalar field), through a set when many (an array's). */
function keysNotIn(keys: IndexKey[], others: IndexKey[]): IndexKey[] {
  if (others.length <= 8) return keys.filter((key) => !others.some((other) => other.bytes.length === key.bytes.length && Buffer.compare(other.bytes, key.bytes) === 0))
  const known = new Set(others.map((other) => latin1(other.bytes)))
  return keys.filter((key) => !known.has(latin1(key.bytes)))
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}

function sameKey(a: Record<string, number>, b: Record<string, number>): boolean {
  return JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b))
}
