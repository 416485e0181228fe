import type { FastifyRequest } from 'fastify'
import type { AccessClaims, AccessRole } from '../access/access-options.js'
import type { CheckedScope, Dependency, ReadRequest, RouteDependencies, ScopeFilter } from '../dependency.js'
import type { FieldNames, FieldPath, IdentifierField } from '../field-names.js'
import type { InModel, MongoModelSchema, OutModel } from '../models.js'
import type { FilterLimits } from '../query/parse-filter.js'
import type { ExtraRouteName, RouteName } from '../route-names.js'
import type { DriverDb } from '../store/driver-db.js'
import type { ResolvedIndex } from '../store/store.js'
import type { CRUDEmbed } from './crud-embed.js'
import type { CRUDLookup } from './crud-lookup.js'
import type { CRUDPopulate } from './crud-populate.js'
import type { PlainRouterOptions } from './router-option-schemas.js'

/** A field path of the stored model that an index may cover (a `FieldPath`). */
export type IndexField<M extends InModel> = FieldPath<M>

// The options below name the fields as `FieldNames<M>[...]`, not through these aliases: TypeScript shows
// an imported alias by its name (`FieldPath<TObject<...>>`) in errors, and the lookup by the names it holds.
export type { FieldPath, IdentifierField }

/**
 * An index the router declares on its collection at registration (`createIndex`, idempotent), on
 * MongoDB and on the embedded engine alike. `key` maps stored field paths to 1 (ascending) or -1.
 */
export interface RouterIndex<M extends InModel = InModel> {
  key: { [F in FieldNames<M>['path']]?: 1 | -1 }
  unique?: boolean
  name?: string
}

/**
 * Options of `CRUDRouter`, typed after the input model `M` and the output model `O` (both inferred from
 * what `app.register(CRUDRouter, { ... })` receives), and `S`, what `filterDependency` returns (inferred
 * there too, so that its keys are checked against the model). The plain keys (collectionName, prefix,
 * tags, name, singular, the limits, notFoundStatus, the disable* keys...) are those of
 * router-option-schemas.ts, where each is described; the keys typed after the models are declared here.
 */
export interface CRUDRouterOptions<M extends InModel = InModel, O extends OutModel = OutModel, S extends ScopeFilter<M> = ScopeFilter<M>>
  extends RouteDependencies<M>,
    Omit<PlainRouterOptions, 'identifierField' | 'indexes' | 'filterable' | 'sortable' | 'defaultSort'> {
  model: M
  db: DriverDb
  /** `'_id'` (default) or a top-level field of the model, unique. */
  identifierField?: FieldNames<M>['identifier']
  /** Indexes created on the collection at registration; an `identifierField` gets its unique index without one. */
  indexes?: RouterIndex<M>[]
  /** Fields clients may filter on (default: the output model's). */
  filterable?: FieldNames<M>['path'][]
  /** Fields clients may sort on (default: the output model's). */
  sortable?: FieldNames<M>['path'][]
  /** The list's order when a request sends no sort_by: a sortable field, direction 1 (default) or -1. */
  defaultSort?: { field: FieldNames<M>['path'], direction?: 1 | -1 }
  modelOut?: O
  lookups?: CRUDLookup[]
  embeds?: CRUDEmbed[]
  populates?: CRUDPopulate[]
  /**
   * Who may read, create, update and delete what, and see which fields: an ordered list of roles, the
   * first whose `when` holds applying (docs/security.md, Access policy). Every channel asks it.
   */
  access?: AccessRole[]
  /** Where the roles' `when: { claim }` and `{ $claim }` read the caller's verified claims (default: `request.user`, as @fastify/jwt sets it). */
  accessClaims?: AccessClaims
  /** Returns the filter that scopes every route of the router (a `FilterDependency`); its keys are checked against the model. */
  filterDependency?: (request: FastifyRequest<ReadRequest>) => CheckedScope<M, S> | Promise<CheckedScope<M, S>>
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
  /** The router's own `_batch`, `_groups` and `_events` its `disableBatch`, `disableGroups`, `disableEvents` leave out. */
  readonly disabledExtras: ReadonlySet<ExtraRouteName>
  readonly dependencies: Readonly<Record<RouteName, readonly Dependency[]>>
  readonly filterDependency: ((request: FastifyRequest) => unknown) | undefined
  /** The `access` option as given (compiled against the model at registration, access/compile-access.ts). */
  readonly access: readonly AccessRole[] | undefined
  readonly accessClaims: AccessClaims | undefined
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
  /** The most groups one `_groups` answer holds (query/parse-group-query.ts). */
  readonly maxGroups: number
  readonly maxBatchOperations: number
  readonly defaultSort: { readonly field: string, readonly direction: 1 | -1 } | undefined
  readonly cursorSecret: string | Buffer | undefined
  readonly etagKey: string | undefined
}

export type { ResolvedIndex }
