import type { InModel, Static } from './models.js'

/**
 * The names options give to a model's fields, as the types of the options read them. The exported types
 * are lookups into this interface rather than plain aliases of the unions: a misspelt name is then reported
 * with the names it may be (`Type '"emial"' is not assignable to type '"name" | "email" | "_id"'`), where
 * an alias would show as `IdentifierField<TObject<...>>` and name none.
 */
export interface FieldNames<M extends InModel> {
  /** `identifierField`: `'_id'` or a top-level field other than `id`. */
  identifier: '_id' | Exclude<keyof Static<M> & string, 'id'>
  /** `filterable`, `sortable`, `defaultSort.field`, index keys: `'_id'`, a field, or a dotted path under one. */
  path: '_id' | (keyof Static<M> & string) | `${keyof Static<M> & string}.${string}`
  /** The top-level keys of a `filterDependency` scope: a path, or one of the logical operators the grammar takes. */
  scope: '_id' | '$and' | '$or' | '$nor' | (keyof Static<M> & string) | `${keyof Static<M> & string}.${string}`
}

/** `'_id'`, or a top-level field of the model other than `id` (the API name of `_id`: say `'_id'`). */
export type IdentifierField<M extends InModel> = FieldNames<M>['identifier']

/**
 * A field path of the stored model: `'_id'`, a model field (`id` included), or a dotted path under one.
 * What `filterable`, `sortable`, `defaultSort.field` and index keys name; a misspelt one fails to compile.
 */
export type FieldPath<M extends InModel> = FieldNames<M>['path']
