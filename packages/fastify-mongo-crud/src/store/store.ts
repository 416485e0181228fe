import type { Filter } from '../query/filter.js'
import type { GroupQuery, GroupRow } from '../query/group-query.js'
import type { ListQuery } from '../query/list-query.js'
import type { ShapeNode } from '../shapes/model-shape.js'

/**
 * A document as the routes see it: JSON-ready, `id` instead of `_id`, identifiers as 24-hex strings.
 * Only `src/store/` converts between this and an engine's representation.
 */
export type WireDoc = Record<string, unknown>

/** A partial update: fields to set (nested paths allowed) and fields to remove. */
/** An index of `indexes`, resolved at registration (options/resolve-router-options.ts). */
export interface ResolvedIndex {
  readonly key: Readonly<Record<string, 1 | -1>>
  readonly unique: boolean
  readonly name: string | undefined
}

export interface DocChanges {
  set: WireDoc
  unset?: string[]
}

/**
 * A stored document (or embedded item) as one read found it: `doc` for the routes, `stored` (opaque)
 * for a conditional write, which applies only while the stored value is still exactly this one.
 */
export interface Snapshot {
  readonly doc: WireDoc
  readonly stored: unknown
}

/** Everything the routes need from storage, and nothing more. */
export interface CollectionStore {
  /** Streams the matching documents; memory stays flat whatever the collection size. */
  list(query: ListQuery): AsyncIterable<WireDoc>
  /** The whole page at once, for bounded pages. */
  find(query: ListQuery): Promise<WireDoc[]>
  count(filter: Filter | undefined): Promise<number>
  /** The matching documents grouped and measured by one aggregation (query/group-query.ts). */
  groups(query: GroupQuery): Promise<GroupRow[]>
  /** The collection's size from its metadata (fast, may lag); for lists with no filter and no scope. */
  estimatedCount(): Promise<number>
  /** One matching document; with `fields`, only those top-level fields (and `id`) are read. */
  findOne(filter: Filter, fields?: readonly string[]): Promise<WireDoc | undefined>
  /** `findOne`, keeping what a conditional write (`unchanged`) compares the stored document with. */
  findSnapshot(filter: Filter): Promise<Snapshot | undefined>
  /**
   * The document as the store will keep it, in wire form (ObjectIds of the model as lowercase hex):
   * what a filter is evaluated on before a write, so it compares as the database will.
   */
  asStored(doc: WireDoc): WireDoc
  /** Inserts a document; a duplicate `_id` or unique field raises StoreError FMC_ERR_STORE_DUPLICATE. */
  insert(doc: WireDoc): Promise<WireDoc>
  /**
   * Replaces every field the model declares in the document matching `filter`: those sent are set,
   * the others removed. `_id`, fields the model does not declare and the fields named in `keep`
   * (embedded item arrays) are kept. Undefined when nothing matched.
   *
   * `unchanged` (on replace, update and remove): the write applies only if the stored document is still
   * exactly the snapshot, checked by the database in the write's own filter (compare-and-swap).
   */
  replace(filter: Filter, doc: WireDoc, keep?: readonly string[], unchanged?: Snapshot): Promise<WireDoc | undefined>
  update(filter: Filter, changes: DocChanges, unchanged?: Snapshot): Promise<WireDoc | undefined>
  /** Deletes one matching document; false when nothing matched. */
  remove(filter: Filter, unchanged?: Snapshot): Promise<boolean>
  removeMany(filter: Filter): Promise<number>
  /** Creates an index (idempotently: an identical one may exist). */
  ensureIndex(index: ResolvedIndex): Promise<void>
  /** Documents whose `_id` is one of `ids`, for populating references (one query). */
  findByIds(ids: readonly string[]): Promise<WireDoc[]>
  /** The items of an array of sub-documents (an embed) held by this collection's documents. */
  arrayItems(field: string, itemShape: ShapeNode): ArrayItems
  /** The collection's changes after the one `from` names (a resume token), or from now (watch-changes.ts). */
  changes(from: string | undefined): StoreChanges
}

/**
 * Items stored in an array field of a parent document. `undefined` from a read means the parent
 * does not exist (or is outside `parent`'s scope).
 */
export interface ArrayItems {
  /** One page of the items of the parent, at once; empty when the parent is missing too (see hasParent). */
  find(parent: Filter, query: ListQuery): Promise<WireDoc[]>
  /** The items of the parent one by one, as `CollectionStore.list` streams documents. */
  list(parent: Filter, query: ListQuery): AsyncIterable<WireDoc>
  /** The parent's matching items grouped and measured, as `CollectionStore.groups` does documents. */
  groups(parent: Filter, query: GroupQuery): Promise<GroupRow[]>
  /** Whether the parent exists (within `parent`'s scope): what tells an empty list from a missing parent. */
  hasParent(parent: Filter): Promise<boolean>
  get(parent: Filter, itemId: string): Promise<{ item: WireDoc | undefined } | undefined>
  /** `get`, keeping what a conditional write (`unchanged`) compares the stored item with. */
  snapshot(parent: Filter, itemId: string): Promise<{ item: Snapshot | undefined } | undefined>
  /** Adds an item (a new id unless it brings a valid one); undefined when the parent is missing or the id is taken. */
  push(parent: Filter, item: WireDoc): Promise<WireDoc | undefined>
  /**
   * Merges changes into one item; undefined when the parent or the item is missing (or, with
   * `unchanged`, when the stored item is no longer exactly that snapshot).
   */
  update(parent: Filter, itemId: string, changes: WireDoc, unchanged?: Snapshot): Promise<WireDoc | undefined>
  /** Replaces one item whole, keeping its id; undefined as for `update` (a merge patch or JSON Patch of an item). */
  replace(parent: Filter, itemId: string, item: WireDoc, unchanged?: Snapshot): Promise<WireDoc | undefined>
  /** Removes one item; false when the parent or the item is missing (or differs from `unchanged`). */
  pull(parent: Filter, itemId: string, unchanged?: Snapshot): Promise<boolean>
}

/** One change of a collection as the `_events` route reads it: wire documents, the resume token as text. */
export interface StoredChange {
  token: string
  operation: 'insert' | 'update' | 'replace' | 'delete'
  /** The document after the change (absent for a delete, or when it was deleted before an update's lookup). */
  after?: WireDoc | undefined
  /** The document before it, when the database keeps pre-images (the engine always; MongoDB when the collection has them on). */
  before?: WireDoc | undefined
  /** The changed document's `id`, in wire form. */
  id: unknown
}

/** A collection's changes from a point on: `next()` waits for the next one; undefined once closed. */
export interface StoreChanges {
  /** The first change now, or undefined: reading it is what tells a bad resume point or a database without change streams. */
  tryNext(): Promise<StoredChange | undefined>
  next(): Promise<StoredChange | undefined>
  close(): Promise<void>
}
