import type { FastifyInstance, FastifyRequest } from 'fastify'
import { appRegistry } from '../app-registry.js'
import { didYouMean } from '../did-you-mean.js'
import { SetupError } from '../errors.js'
import type { InModel, OutModel, Static } from '../models.js'

/**
 * A document as the router answers it: the output model's fields (`modelOut`, or the model's with
 * `id` a string), hidden fields removed. Populated fields are typed as stored (their ids).
 */
export type ServiceDocument<M extends InModel, O extends OutModel | undefined> = [O] extends [OutModel]
  ? Static<O>
  : Omit<Static<M>, 'id'> & { id: string }

/** The list route's query parameters, as values: what `?skip=...&filters=...` would carry. */
export interface ServiceListQuery {
  skip?: number | string
  limit?: number | string
  sort_by?: string
  order_by?: string
  sort_dir?: number | string
  /** The filter grammar of the list route: a JSON string, or the object it would parse to. */
  filters?: string | Record<string, unknown>
  /** `fields=`: the comma-separated fields to answer (`id` always), as on the list route. */
  fields?: string
  /** A page cursor a list route's `Link` gave (the service hands out none: it answers no headers). */
  cursor?: string
}

/** The `_groups` route's query parameters, as values (docs/groups.md); lists may be given as arrays. */
export interface ServiceGroupsQuery {
  /** The fields whose combination of values makes a group: `'city,role'` or `['city', 'role']`. */
  by: string | readonly string[]
  /** `count` (the default), `sum:<field>`, `avg:<field>`, `min:<field>`, `max:<field>`: as a comma-separated string or an array. */
  metrics?: string | readonly string[]
  /** The list's filter grammar: a JSON string, or the object it would parse to. */
  filters?: string | Record<string, unknown>
  /** A `by` field or a metric name (`count`, `sum_age`). */
  sort_by?: string
  order_by?: string
  sort_dir?: number | string
  skip?: number | string
  limit?: number | string
}

/** One group: its `by` fields (null for a missing value) and its metrics (`count`, `sum_age`...). */
export type ServiceGroup = Record<string, unknown>

/**
 * What the router's routes do, callable from a handler of your own, without HTTP: the same filter
 * grammar, `filterDependency` scope (of `request`), validation, output model and errors. Failures throw
 * the catalog's `HTTPException`s (status, `detail`, `code`); on an app made by `createApp` a handler
 * that lets them propagate answers exactly as the generated route would. The route dependencies
 * (`dependencies*`) are not run: they guard the generated routes; give your route its own hooks.
 */
export interface CrudService<M extends InModel = InModel, O extends OutModel | undefined = undefined> {
  /** The router's name (its operationIds and summaries are made of it). */
  readonly name: string
  /** GET <prefix>: the documents matching `query` under the scope. Without a `limit` (or `defaultLimit`), all of them, in memory. */
  list(input: { request: FastifyRequest, query?: ServiceListQuery }): Promise<Array<ServiceDocument<M, O>>>
  /** GET <prefix>/_groups: the documents matching `query.filters` under the scope, grouped by `by` and measured by `metrics`. */
  groups(input: { request: FastifyRequest, query: ServiceGroupsQuery }): Promise<ServiceGroup[]>
  /** GET <prefix>/{id}: the document, or the router's "Document not found" (400, or `notFoundStatus`). */
  get(input: { request: FastifyRequest, id: string, fields?: string }): Promise<ServiceDocument<M, O>>
  /** POST <prefix>: validates `body` against the model (scope-fixed fields filled in), stores it, answers it. */
  create(input: { request: FastifyRequest, body: Static<M> }): Promise<ServiceDocument<M, O>>
  /** PUT <prefix>/{id}: replaces the document (its embedded item arrays kept). */
  replace(input: { request: FastifyRequest, id: string, body: Static<M> }): Promise<ServiceDocument<M, O>>
  /** PATCH <prefix>/{id}: changes the fields sent; `null` clears one. */
  update(input: { request: FastifyRequest, id: string, body: Partial<Static<M>> }): Promise<ServiceDocument<M, O>>
  /** DELETE <prefix>/{id}. */
  delete(input: { request: FastifyRequest, id: string }): Promise<void>
}

/** What the registry keeps per router: the service and the models it was built for. */
interface RegisteredService {
  readonly service: CrudService
  readonly model: InModel
  readonly modelOut: OutModel | undefined
}

/**
 * The service of the router named `name` (its `name` option, or its collection name: see
 * docs/service-api.md), once that router is registered. Pass its models to type the documents; they
 * are checked against the router's.
 */
export function crudService<M extends InModel = InModel, O extends OutModel | undefined = undefined>(
  app: FastifyInstance,
  name: string,
  models?: { model: M, modelOut?: O }
): CrudService<M, O> {
  const { found, names } = appRegistry(app).service(name)
  if (found === undefined) {
    const known = names.length === 0 ? 'no router is registered yet (await app.register(CRUDRouter, ...) first)' : `the routers are named ${names.map((n) => `'${n}'`).join(', ')}`
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `crudService: no router named '${name}': ${known}${didYouMean(name, names)}`)
  }
  const registered = found as RegisteredService
  if (models !== undefined && (models.model !== registered.model || (models.modelOut ?? undefined) !== registered.modelOut)) {
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `crudService: the models given for '${name}' are not the router's (model ${registered.model.$id}${registered.modelOut === undefined ? '' : `, modelOut ${registered.modelOut.$id}`})`)
  }
  return registered.service as unknown as CrudService<M, O>
}
