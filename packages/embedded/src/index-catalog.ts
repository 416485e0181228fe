import { checkFieldPath } from './check-field-path.js'
import type { Document } from './document.js'
import { duplicateKeyError, duplicatesOnDiskError, indexConflictError, invalidArgumentError } from './errors.js'
import type { Storage, StoredIndex } from './persist/storage.js'
import { UniqueIndex } from './unique-index.js'

export const ID_INDEX = '_id_'

/**
 * A collection's index definitions and the live unique indexes built from them. Definitions
 * persist in storage; unique indexes are rebuilt from the documents on first use after opening.
 * Unique indexes on one field also serve equality lookups (point-keys.ts). Non-unique indexes
 * are recorded (so `createIndex` behaves) but never consulted.
 */
export class IndexCatalog {
  readonly #storage: Storage
  readonly #collection: string
  readonly #ns: string
  #defined: StoredIndex[] = []
  #unique: UniqueIndex[] = []

  constructor(storage: Storage, collection: string, ns: string) {
    this.#storage = storage
    this.#collection = collection
    this.#ns = ns
  }

  get unique(): readonly UniqueIndex[] {
    return this.#unique
  }

  /**
   * Loads definitions and fills unique indexes from every stored document. Two documents with
   * one key fail the load (the indexes stay unloaded, so every use fails the same way): keeping
   * one owner would let point reads miss the other document.
   */
  load(documents: () => Iterable<[string, Document]>): void {
    this.#defined = this.#storage.readIndexes(this.#collection)
    const unique = this.#defined.filter((d) => d.unique).map((d) => new UniqueIndex(d.name, Object.keys(d.key)))
    this.#unique = []
    if (unique.length > 0) {
      for (const [docKey, doc] of documents()) {
        for (const index of unique) {
          const conflict = index.findConflict(doc, docKey)
          if (conflict) throw duplicatesOnDiskError(this.#ns, index.name, conflict.keyValue)
          index.add(doc, docKey)
        }
      }
    }
    this.#unique = unique
  }

  /** Creates (or finds, when identical) an index; a new unique index is checked against the data. */
  async create(key: Record<string, 1 | -1>, options: { unique?: boolean, name?: string }, documents: () => Iterable<[string, Document]>): Promise<string> {
    const fields = Object.keys(key)
    if (fields.length === 0 || Object.values(key).some((dir) => dir !== 1 && dir !== -1)) {
      throw invalidArgumentError(`Index keys must be a non-empty object of 1 or -1, got ${JSON.stringify(key)}`)
    }
    for (const field of fields) checkFieldPath(field)
    const name = options.name ?? fields.map((f) => `${f}_${key[f]}`).join('_')
    const unique = options.unique === true
    if (fields.length === 1 && fields[0] === '_id') return ID_INDEX
    const existing = this.#defined.find((d) => d.name === name || sameKey(d.key, key))
    if (existing) {
      if (existing.name === name && sameKey(existing.key, key) && existing.unique === unique) return name
      throw indexConflictError(`An existing index has the same name or key as the requested index. Requested index: { name: "${name}" }, existing index: { name: "${existing.name}" }`)
    }
    const built: UniqueIndex[] = []
    if (unique) {
      const index = new UniqueIndex(name, fields)
      for (const [docKey, doc] of documents()) {
        const conflict = index.findConflict(doc, docKey)
        if (conflict) throw duplicateKeyError(this.#ns, name, conflict.keyValue)
        index.add(doc, docKey)
      }
      built.push(index)
    }
    // Persist first: an index the catalog failed to record must not be enforced either.
    const defined = [...this.#defined, { name, key, unique }]
    await this.#storage.writeIndexes(this.#collection, defined)
    this.#defined = defined
    this.#unique = [...this.#unique, ...built]
    return name
  }

  /** The stored definitions (the `_id` index is implicit and not among them). */
  list(): StoredIndex[] {
    return this.#storage.readIndexes(this.#collection)
  }

  /** Drops one index by name, or every index but `_id`'s with `*`; false when none matched. */
  async drop(name: string): Promise<boolean> {
    // From storage: dropping an index is how duplicates that fail `load` get repaired.
    this.#defined = this.#storage.readIndexes(this.#collection)
    const kept = name === '*' ? [] : this.#defined.filter((d) => d.name !== name)
    if (kept.length === this.#defined.length && name !== '*') return false
    await this.#storage.writeIndexes(this.#collection, kept)
    this.#defined = kept
    this.#unique = this.#unique.filter((index) => kept.some((d) => d.name === index.name))
    return true
  }

  clear(): void {
    this.#defined = []
    this.#unique = []
  }
}

function sameKey(a: Record<string, number>, b: Record<string, number>): boolean {
  return JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b))
}
