import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'

/**
 * A document as the routes see it: JSON-ready, `id` instead of `_id`, identifiers as 24-hex strings.
 * Only `src/store/` converts between this and an engine's representation.
 */
export type WireDoc = Record<string, unknown>

/** A partial update: fields to set (nested paths allowed) and fields to remove. */
export interface DocChanges {
  set: WireDoc
  unset?: string[]
}

/** Everything the routes need from storage, and nothing more. */
export interface CollectionStore {
  /** Streams the matching documents; memory stays flat whatever the collection size. */
  list(query: ListQuery): AsyncIterable<WireDoc>
  /** The whole page at once, for bounded pages. */
  find(query: ListQuery): Promise<WireDoc[]>
  count(filter: Filter | undefined): Promise<number>
  findOne(filter: Filter): Promise<WireDoc | undefined>
  /** Inserts a document; a duplicate `_id` or unique field raises StoreError FMC_ERR_STORE_DUPLICATE. */
  insert(doc: WireDoc): Promise<WireDoc>
  /** Replaces the whole document matching `filter`, keeping its `_id`; undefined when nothing matched. */
  replace(filter: Filter, doc: WireDoc): Promise<WireDoc | undefined>
  update(filter: Filter, changes: DocChanges): Promise<WireDoc | undefined>
  /** Deletes one matching document; false when nothing matched. */
  remove(filter: Filter): Promise<boolean>
  removeMany(filter: Filter): Promise<number>
  /** Creates (idempotently) a unique index on a field. */
  ensureUnique(field: string): Promise<void>
}
