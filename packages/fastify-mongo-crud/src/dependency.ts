import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify'
import type { Filter } from 'mongodb'
import type { FieldNames } from './field-names.js'
import type { InModel, MongoModelSchema, Static } from './models.js'

/**
 * Runs before its route; throw `HTTPException` (or any error with a 4xx `statusCode`) to refuse.
 * `RouteGeneric` types what the request carries on the route the dependency is attached to.
 */
export type Dependency<RouteGeneric extends RouteGenericInterface = RouteGenericInterface> = (
  request: FastifyRequest<RouteGeneric>,
  reply: FastifyReply
) => unknown

/**
 * The write a dependency is asked about when it did not come as its own request: an operation of a
 * `_batch` or a write of the Data API endpoint (docs/batch.md). The dependency is called with the
 * request that carried it (the `_batch` POST, the Data API action), whose `crudOperation` says which
 * write it is for. Undefined on a route's own request, whose method, path and body are the operation.
 */
export interface CrudOperation {
  /** The route the operation stands for: `create` (POST), `replace` (PUT), `update` (PATCH), `delete`. */
  readonly op: 'create' | 'replace' | 'update' | 'delete'
  /** The id of its document, as in the route's URL (all but `create`). */
  readonly id?: string | undefined
  /** What the route would take as its body, parsed and not yet checked. */
  readonly body?: unknown
  /** The media type of the body (`application/json` unless an update says another PATCH media type). */
  readonly contentType: string
  /** Its `If-Match`, as the route's header. */
  readonly ifMatch?: string | readonly string[] | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The write the dependencies being run are asked about, when the request carries more than its own (docs/batch.md). */
    crudOperation?: CrudOperation | undefined
  }
}

/** Path parameters as dependencies see them: strings, not yet validated (a child route adds its own). */
export type RawParams = { readonly [name: string]: string | undefined }

/**
 * A request body as a dependency sees it. Dependencies run before validation, so that a refused caller
 * learns nothing about the schema: the body is parsed JSON of any shape. Its keys are the model's (a typo
 * fails to compile), its values are unchecked until the route validates them.
 */
export type UnvalidatedBody<T> = { readonly [K in keyof T]?: unknown } | null | undefined

/** What a dependency of a route that takes no body receives. */
export type ReadRequest = { Params: RawParams }
/** What a dependency of a write route receives: the body is typed after the model it will be checked against. */
export type WriteRequest<M extends MongoModelSchema> = { Params: RawParams, Body: UnvalidatedBody<Static<M>> }

/** The per-route dependency keys of a router, a lookup or an embed, typed after the model `M`. */
export interface RouteDependencies<M extends MongoModelSchema> {
  dependenciesGetAll?: Dependency<ReadRequest>[]
  dependenciesGetOne?: Dependency<ReadRequest>[]
  dependenciesCreateOne?: Dependency<WriteRequest<M>>[]
  dependenciesReplaceOne?: Dependency<WriteRequest<M>>[]
  dependenciesUpdateOne?: Dependency<WriteRequest<M>>[]
  dependenciesDeleteOne?: Dependency<ReadRequest>[]
}

/** The filter a `filterDependency` returns: the official driver's `Filter` of the model's documents. */
export type ScopeFilter<M extends MongoModelSchema> = Filter<Static<M>>

/**
 * The scope `S` a router's `filterDependency` returns, with its top-level keys checked: each must be a
 * field of the model (or a dotted path under one), `_id`, `$and`, `$or` or `$nor`, as the filter grammar
 * requires. TypeScript checks no excess keys in what a function returns, so each other key is given a type
 * no value has, whose text names the key and the ones it may be. A scope typed with an index signature
 * (a plain `FilterDependency`) has no keys to check.
 */
export type CheckedScope<M extends InModel, S> = S &
  (string extends keyof S ? unknown : { [K in Exclude<keyof S, FieldNames<M>['scope']>]: { [_ in `'${K & string}' is not a field of the model, whose fields are`]: FieldNames<M>['scope'] } })

/** Returns the filter (MongoDB syntax, trusted server code) that scopes every route of the router. */
export type FilterDependency<M extends MongoModelSchema = MongoModelSchema> = (
  request: FastifyRequest<ReadRequest>
) => ScopeFilter<M> | Promise<ScopeFilter<M>>

/**
 * An OpenAPI security requirement: scheme names (declared in `createApp({ securitySchemes })`) to the
 * scopes they need (`[]` for API keys and plain bearer tokens).
 */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>

const SECURITY: unique symbol = Symbol.for('fastify-mongo-crud.security')

/**
 * Declares the security scheme a dependency (or a `filterDependency`) enforces, so the OpenAPI document
 * shows it: every route running it carries the requirement (Swagger UI draws the lock and sends the
 * header). `securedBy('adminRole', adminOnly)`, or a requirement object for OAuth scopes. The function
 * returned runs the one given, unchanged.
 */
export function securedBy<F extends (...args: never[]) => unknown>(requirement: string | SecurityRequirement, dependency: F): F {
  const declared: SecurityRequirement = typeof requirement === 'string' ? { [requirement]: [] } : requirement
  const wrapped = ((...args: Parameters<F>) => dependency(...args)) as F
  Object.defineProperty(wrapped, SECURITY, { value: Object.freeze({ ...declared }), enumerable: false })
  return wrapped
}

/** The requirement `securedBy` attached to a function, if any. */
export function securityOf(dependency: unknown): SecurityRequirement | undefined {
  if (typeof dependency !== 'function') return undefined
  return (dependency as unknown as Record<symbol, SecurityRequirement | undefined>)[SECURITY]
}
