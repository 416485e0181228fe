import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import type { AccessOp } from '../access/access-options.js'
import { type AccessDecision, type AccessPolicy, OPEN_ACCESS, reachable } from '../access/compile-access.js'
import { type HTTPException, notFound } from '../errors.js'
import type { Dependency, ResolvedRouterOptions, RouteName } from '../options.js'
import { defaultSorter } from '../query/default-sort.js'
import { allOf, type Filter, fieldEquals } from '../query/filter.js'
import type { ListSpec } from '../query/parse-client-query.js'
import { withholdFields } from '../query/parse-fields.js'
import type { FilterContext, } from '../query/parse-filter.js'
import { errorRef } from '../schema/error-schemas.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { isObjectIdHex } from '../shapes/object-id.js'
import type { CollectionStore, WireDoc } from '../store/store.js'
import { collectionPlace, placeKey } from './etag.js'
import { requestScope } from './request-scope.js'
import { refusalResponses } from './route-refusals.js'
import { routeSecurity } from './route-security.js'
import { DEFAULT_MAX_STREAMS, DEFAULT_STREAM_IDLE_TIMEOUT_MS, StreamGate } from './stream-gate.js'

/**
 * Who a document is shown to: the request (its scope, its headers) and, on a route, the reply the
 * dependencies of a populate's target router receive (the service API has none, and runs none).
 */
export interface Caller {
  readonly request: FastifyRequest
  readonly reply?: FastifyReply | undefined
}

/** What every route of one router shares, computed once at registration. */
export interface RouterContext {
  readonly options: ResolvedRouterOptions
  readonly store: CollectionStore
  /** Input model shape (types) and the shape clients may filter and sort on. */
  readonly typed: ShapeNode
  readonly visible: ShapeNode
  readonly sortable: ShapeNode
  readonly filterContext: FilterContext
  readonly listSpec: ListSpec
  /** The router's streamed lists in flight (its own and its lookups'), capped by `maxStreams`. */
  readonly streams: StreamGate
  /** Name of the item path parameter: `id` for `_id`, else the identifier field's name. */
  readonly itemParam: string
  /** The key of this collection's ETags: `etagKey` bound to the database and collection (core/etag.ts). */
  readonly etagKey: string
  /**
   * The key of the ETags of the items of one embedded array of the request's parent: bound to the
   * array and to that parent, so an item copied under another parent never shares a tag.
   */
  itemEtagKey(request: FastifyRequest, embedName: string): string
  /** `$ref`s of the component schemas; `read` is the output of every route that answers a document. */
  readonly refs: { body: object, patch: object, read: object }
  /** A stored document as GET one answers it (populated); writes answer the same shape. */
  present(doc: WireDoc, caller: Caller): Promise<WireDoc>
  /** The router's compiled `access` policy, if it has one. */
  readonly policy: AccessPolicy | undefined
  /** Whether what a caller may reach depends on the caller: an `access` policy or a `filterDependency` scope. */
  readonly guarded: boolean
  /**
   * What the caller may do here (computed once per request): the `access` policy's decision, each
   * operation's filter ANDed with the `filterDependency` scope. Throws the policy's 401 or 403 when no
   * role applies. A scope or policy filter the router cannot use matches nothing, logged once.
   */
  access(request: FastifyRequest): Promise<AccessDecision>
  /** Identifier (the path's, or `id`) AND the filter of `op` (default `read`); undefined when the identifier cannot match any document. */
  itemFilter(request: FastifyRequest, id?: string, op?: AccessOp): Promise<Filter | undefined>
  notFound(): HTTPException
  /** Route-level options shared by every generated route: tags, dependencies, error responses. */
  routeOptions(name: RouteName, responses: Record<number, object>): Pick<RouteShorthandOptions, 'schema' | 'preValidation'> & {
    schema: Record<string, unknown>
  }
}

export function buildRouterContext(
  options: ResolvedRouterOptions,
  store: CollectionStore,
  shapes: { typed: ShapeNode, visible: ShapeNode, sortable: ShapeNode, scopeShape: ShapeNode },
  filterContext: FilterContext,
  refs: RouterContext['refs'],
  present: RouterContext['present'],
  policy?: AccessPolicy
): RouterContext {
  const itemParam = options.identifierField === '_id' ? 'id' : options.identifierField
  /** The identifier as filters name it (the API's `id` for `_id`). */
  const identifierPath = itemParam
  const identifierNode = nodeAt(shapes.typed, [options.identifierField]) ?? { kind: 'any' }
  // The scope is server code: it names any stored field, the references clients may not name too.
  const scope = requestScope(options, { visible: shapes.scopeShape, typed: shapes.typed, limits: filterContext.limits })
  // Without a policy or a scope every request is decided alike: the decision is one constant, and
  // no request waits on it (a GET one would otherwise spend a tenth of its time in these awaits).
  const guarded = policy !== undefined || options.filterDependency !== undefined
  const access = guarded ? accessOf(policy, scope) : () => OPEN_DECISION
  const place = collectionPlace(options.db, options.collectionName)
  const baseSpec: ListSpec = { sortable: shapes.sortable, filterContext, page: options }
  // Checked here, at registration, by the rule a request's `sort_by` meets.
  const listSpec: ListSpec = { ...baseSpec, defaultSort: defaultSorter(options.defaultSort, baseSpec) }

  return {
    options,
    store,
    typed: shapes.typed,
    visible: shapes.visible,
    sortable: shapes.sortable,
    filterContext,
    listSpec,
    streams: new StreamGate(options.maxStreams ?? DEFAULT_MAX_STREAMS, options.streamIdleTimeout ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS),
    itemParam,
    etagKey: placeKey(options.etagKey, place),
    itemEtagKey(request, embedName) {
      const raw = (request.params as Record<string, string>)[itemParam] ?? ''
      return placeKey(options.etagKey, [...place, embedName, String(identifierValue(raw, identifierNode) ?? raw)])
    },
    refs,
    present: guarded ? async (doc, caller) => withoutHidden(await present(doc, caller), (await access(caller.request)).hidden) : present,
    policy,
    guarded,
    access,
    itemFilter(request, id, op = 'read') {
      const raw = id ?? (request.params as Record<string, string>)[itemParam] ?? ''
      const value = identifierValue(raw, identifierNode)
      if (value === undefined) return NO_FILTER
      const own = fieldEquals(identifierPath, value)
      if (!guarded) return Promise.resolve(own)
      return access(request).then((decision) => allOf(own, reachable(decision, op)))
    },
    notFound: () => notFound(options.notFoundStatus),
    routeOptions: (name, responses) => withRoles(routeOptionsOf(options, name, responses), policy, name),
  }
}

const OPEN_DECISION: Promise<AccessDecision> = Promise.resolve(OPEN_ACCESS)
const NO_FILTER: Promise<undefined> = Promise.resolve(undefined)

/**
 * The decision of each request, made once: the policy's (every operation open without one), each
 * operation's filter ANDed with the `filterDependency` scope, which bounds every operation.
 */
function accessOf(policy: AccessPolicy | undefined, scope: (request: FastifyRequest) => Promise<Filter | undefined>) {
  const decisions = new WeakMap<FastifyRequest, Promise<AccessDecision>>()
  const decide = async (request: FastifyRequest): Promise<AccessDecision> => {
    const decision = policy === undefined ? OPEN_ACCESS : await policy.decide(request)
    withholdFields(request, decision.hidden)
    const scoped = await scope(request)
    if (scoped === undefined) return decision
    return { ...decision, grant: (op) => allOf(decision.grant(op), scoped) }
  }
  return (request: FastifyRequest): Promise<AccessDecision> => {
    let found = decisions.get(request)
    if (found === undefined) {
      found = decide(request)
      decisions.set(request, found)
    }
    return found
  }
}

/** A shown document without the fields the caller's role does not see. */
export function withoutHidden(doc: WireDoc, hidden: ReadonlySet<string>): WireDoc {
  if (hidden.size === 0) return doc
  const shown: WireDoc = {}
  for (const [field, value] of Object.entries(doc)) if (!hidden.has(field)) shown[field] = value
  return shown
}

/** Route-level options shared by every generated route of the router: tags, dependencies, error responses. */
function routeOptionsOf(options: ResolvedRouterOptions, name: RouteName, responses: Record<number, object>): ReturnType<RouterContext['routeOptions']> {
  const dependencies = options.dependencies[name]
  const scopedWrite = options.filterDependency !== undefined && SCOPED_WRITES.has(name)
  const security = routeSecurity([...dependencies, options.filterDependency])
  const schema: Record<string, unknown> = {
    tags: [...options.tags],
    ...(security === undefined ? {} : { security }),
    response: {
      // What the dependencies refuse with (a token's 401...), and a scoped write's own 403.
      ...refusalResponses(dependencies, scopedWrite ? { 403: "The result would fall outside the caller's scope" } : {}),
      // A create runs no query; every other route does, under the router's time limit.
      ...(options.maxTimeMS !== undefined && name !== 'CreateOne' ? { 503: { ...errorRef, description: 'The query exceeded its time limit (maxTimeMS)' } } : {}),
      ...responses,
    },
  }
  return dependencies.length > 0 ? { schema, preValidation: dependencies.map(asHook) } : { schema }
}

/** The operation of the access policy each route is. */
const OP_OF: Readonly<Record<RouteName, AccessOp>> = { GetAll: 'read', GetOne: 'read', CreateOne: 'create', ReplaceOne: 'update', UpdateOne: 'update', DeleteOne: 'delete' }
const MAY = { all: 'every document', some: 'some documents', none: 'refused' } as const

/**
 * OpenAPI documents the roles of a route under a policy: in its description (what people read) and as
 * `x-access-roles` (what tools read), with the 401 and 403 a policy answers.
 */
function withRoles(route: ReturnType<RouterContext['routeOptions']>, policy: AccessPolicy | undefined, name: RouteName): ReturnType<RouterContext['routeOptions']> {
  if (policy === undefined) return route
  const op = OP_OF[name]
  const roles = policy.roles.map((role) => ({ role: role.role, may: role.grants[op] }))
  const description = `Roles: ${roles.map((role) => `${role.role} (${MAY[role.may]})`).join(', ')}.`
  const response = route.schema['response'] as Record<string, object>
  const refusals = {
    401: response[401] ?? { ...errorRef, description: 'No role of the access policy applies to a caller without credentials' },
    403: response[403] ?? { ...errorRef, description: 'No role of the access policy applies to the caller, or its role may not do this' },
  }
  return { ...route, schema: { ...route.schema, description, 'x-access-roles': roles, response: { ...response, ...refusals } } }
}

/** Writes whose result `filterDependency` checks (403 when it would leave the scope). */
const SCOPED_WRITES: ReadonlySet<RouteName> = new Set(['CreateOne', 'ReplaceOne', 'UpdateOne'])

/** The path segment as a value of the identifier field's type; undefined when no document can have it. */
function identifierValue(raw: string, node: ShapeNode): string | number | undefined {
  switch (node.kind) {
    case 'objectId':
      return isObjectIdHex(raw) ? raw.toLowerCase() : undefined
    case 'scalar':
      if (node.types.has('string')) return raw
      if (node.types.has('number')) {
        const number = Number(raw)
        return raw.trim() !== '' && Number.isFinite(number) ? number : undefined
      }
      return undefined
    default:
      return raw
  }
}

/**
 * Dependencies may be sync or async and take (request, reply); wrapping them as async hooks means a
 * sync function is never mistaken for a callback-style hook waiting on `done`.
 */
function asHook(dependency: Dependency) {
  return async (request: FastifyRequest, reply: Parameters<Dependency>[1]) => {
    await dependency(request, reply)
  }
}
