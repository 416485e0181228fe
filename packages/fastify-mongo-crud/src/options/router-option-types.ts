import type { FastifyRequest } from 'fastify'
import type { Dependency, FilterDependency, RouteDependencies } from '../dependency.js'
import type { InModel, MongoModelSchema, OutModel, Static } from '../models.js'
import type { FilterLimits } from '../query/parse-filter.js'
import type { CRUDEmbed } from '../relations/crud-embed.js'
import type { CRUDLookup } from '../relations/crud-lookup.js'
import type { CRUDPopulate } from '../relations/crud-populate.js'
import type { RouteName } from '../route-names.js'
import type { DriverDb } from '../store/driver-db.js'
import type { PlainRouterOptions } from './router-option-schemas.js'

/** `'_id'`, or a top-level field of the model other than `id` (the API name of `_id`: say `'_id'`). */
export type IdentifierField<M extends InModel> = '_id' | Exclude<keyof Static<M> & string, 'id'>

/** A field path of the stored model that an index may cover: `'_id'`, a model field, or a dotted path under one. */
export type IndexField<M extends InModel> = '_id' | (keyof Static<M> & string) | `${keyof Static<M> & string}.${string}`

/**
 * An index the router declares on its collection at registration (`createIndex`, idempotent), on
 * MongoDB and on the embedded engine alike. `key` maps stored field paths to 1 (ascending) or -1.
 */
export interface RouterIndex<M extends InModel = InModel> {
  key: Partial<Record<IndexField<M>, 1 | -1>>
  unique?: boolean
  name?: string
}

/**
 * Options of `CRUDRouter`, typed after the input model `M` and the output model `O` (both inferred from
 * what `app.register(CRUDRouter, { ... })` receives). The plain keys (collectionName, prefix, tags,
 * name, singular, filterable, sortable, defaultSort, the limits, notFoundStatus, the disable* keys...)
 * are those of router-option-schemas.ts, where each is described; the keys typed after the models
 * are declared here.
 */
export interface CRUDRouterOptions<M extends InModel = InModel, O extends OutModel = OutModel>
  extends RouteDependencies<M>,
    Omit<PlainRouterOptions, 'identifierField' | 'indexes'> {
  model: M
  db: DriverDb
  /** `'_id'` (default) or a top-level field of the model, unique. */
  identifierField?: IdentifierField<M>
  /** Indexes created on the collection at registration; an `identifierField` gets its unique index without one. */
  indexes?: RouterIndex<M>[]
  modelOut?: O
  lookups?: CRUDLookup[]
  embeds?: CRUDEmbed[]
  populates?: CRUDPopulate[]
  filterDependency?: FilterDependency<M>
  /**
   * Secret that seals the list's page cursors (at least 32 characters or bytes). Default: random per
   * process, so set it when several instances serve one API: a cursor from one must work on the others.
   */
  cursorSecret?: string | Buffer
}

export interface ResolvedRouterOptions {
  readonly model: MongoModelSchema
  readonly modelOut: MongoModelSchema | undefined
  readonly db: DriverDb
  readonly collectionName: string
  readonly tags: readonly string[]
  /** Set by the user, or undefined for the collection's name (plugin.ts resolves it against the app's other routers). */
  readonly name: string | undefined
  readonly singular: string | undefined
  readonly identifierField: string
  /** The declared indexes, then the identifier field's unique index when it is not `_id`. */
  readonly indexes: readonly ResolvedIndex[]
  readonly lookups: readonly CRUDLookup[]
  readonly embeds: readonly CRUDEmbed[]
  readonly populates: readonly CRUDPopulate[]
  readonly disabled: ReadonlySet<RouteName>
  readonly dependencies: Readonly<Record<RouteName, readonly Dependency[]>>
  readonly filterDependency: ((request: FastifyRequest) => unknown) | undefined
  readonly filtersUnderScope: 'ignore' | 'and'
  readonly clientIdsUnderScope: 'refuse' | 'allow'
  readonly notFoundStatus: 400 | 404
  readonly filterable: readonly string[] | undefined
  readonly sortable: readonly string[] | undefined
  readonly defaultLimit: number | undefined
  readonly maxLimit: number | undefined
  readonly maxSkip: number | undefined
  readonly maxTimeMS: number | undefined
  readonly filterLimits: Readonly<FilterLimits>
  readonly maxStreams: number | undefined
  readonly streamIdleTimeout: number | undefined
  readonly defaultSort: { readonly field: string, readonly direction: 1 | -1 } | undefined
  readonly cursorSecret: string | Buffer | undefined
  readonly etagKey: string | undefined
}

export interface ResolvedIndex {
  readonly key: Readonly<Record<string, 1 | -1>>
  readonly unique: boolean
  readonly name: string | undefined
}
