import { decodeDocument, encodeDocument } from '../bson/bson-codec.js'
import { toValueKey } from '../bson/value-key.js'
import { type Document, isNonArrayObject } from '../document.js'
import { badValueError, invalidNamespaceError, typeMismatchError } from '../errors.js'
import type { CollectionStorage } from '../storage/storage.js'

/** A view: read-only, its documents are `pipeline` run over the collection (or view) `viewOn`. */
export interface ViewDefinition {
  viewOn: string
  pipeline: Document[]
}

/** Where a database keeps its views, as MongoDB does: the `system.views` collection. */
export const VIEWS_COLLECTION = 'system.views'

/**
 * The views of one database, stored as documents of its `system.views` collection (so they are
 * durable like any write) and cached after the first read.
 */
export class ViewCatalog {
  readonly #db: string
  readonly #storage: () => CollectionStorage
  #cache: Map<string, ViewDefinition> | undefined

  constructor(db: string, storage: () => CollectionStorage) {
    this.#db = db
    this.#storage = storage
  }

  get(name: string): ViewDefinition | undefined {
    return this.#load().get(name)
  }

  names(): string[] {
    return [...this.#load().keys()]
  }

  async create(name: string, definition: ViewDefinition): Promise<void> {
    await this.#storage().write({ puts: [[toValueKey(name), encodeDocument({ _id: `${this.#db}.${name}`, viewOn: definition.viewOn, pipeline: definition.pipeline })]] })
    this.#load().set(name, definition)
  }

  async drop(name: string): Promise<boolean> {
    if (!this.#load().has(name)) return false
    await this.#storage().write({ removes: [toValueKey(name)] })
    this.#load().delete(name)
    return true
  }

  /** Forgets the cache after the database was dropped underneath. */
  clear(): void {
    this.#cache = undefined
  }

  #load(): Map<string, ViewDefinition> {
    if (this.#cache) return this.#cache
    const views = new Map<string, ViewDefinition>()
    const prefix = `${this.#db}.`
    const walk = this.#storage().scan()
    for (let next = walk.next(); !next.done; next = walk.next()) {
      const doc = decodeDocument(next.value)
      const id = String(doc['_id'])
      if (id.startsWith(prefix)) views.set(id.slice(prefix.length), { viewOn: String(doc['viewOn']), pipeline: (doc['pipeline'] ?? []) as Document[] })
    }
    this.#cache = views
    return views
  }
}

/** `{ viewOn, pipeline }` of `create`, checked as the server checks them. */
export function parseViewOptions(options: { viewOn?: unknown, pipeline?: unknown }): ViewDefinition {
  const { viewOn, pipeline } = options
  if (typeof viewOn !== 'string') throw typeMismatchError(`'viewOn' must be a string, not ${typeof viewOn}`)
  if (viewOn === '' || viewOn.includes('$') || viewOn.includes('\0')) throw invalidNamespaceError(`invalid name for 'viewOn': ${JSON.stringify(viewOn)}`)
  if (pipeline !== undefined && !Array.isArray(pipeline)) throw typeMismatchError("'pipeline' must be an array")
  for (const stage of (pipeline ?? []) as unknown[]) {
    if (!isNonArrayObject(stage)) throw badValueError('each stage of a view pipeline must be an object')
    const name = Object.keys(stage)[0]
    if (name === '$out' || name === '$merge') throw badValueError(`${name} cannot be used in a view definition`)
  }
  return { viewOn, pipeline: (pipeline ?? []) as Document[] }
}
