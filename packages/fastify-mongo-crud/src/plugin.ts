import type { FastifyInstance, RouteOptions } from 'fastify'
import { type TSchema, Type } from 'typebox'
import { type AccessPolicy, compileAccess } from './access/compile-access.js'
import { appRegistry } from './app-registry.js'
import { BATCH_SEGMENT, mountBatchRoute } from './batch/batch-route.js'
import { eventStreamsOf } from './core/event-streams.js'
import { listPresenters } from './core/list-presenter.js'
import { buildRouterContext } from './core/router-context.js'
import { addDataSource } from './data-api/data-sources.js'
import { type Bodied, bodiedOf } from './dispatch/body-checks.js'
import { collectionEndpoint, type Endpoint, lookupEndpoint } from './dispatch/endpoint.js'
import { batchNames } from './docs/batch-names.js'
import { withListQueryDocs } from './docs/list-query-docs.js'
import { claimNaming, identifierOf, type Naming, namingOf, withNames } from './docs/router-naming.js'
import { SetupError } from './errors.js'
import { MongoModelOut, type MongoModelSchema } from './models.js'
import { refuseUnshownPaths } from './options/shown-paths.js'
import { type CRUDRouterOptions, type ResolvedRouterOptions, resolveRouterOptions } from './options.js'
import type { ListSpec } from './query/parse-client-query.js'
import { registerRouterModels } from './register-router-models.js'
import { registerRouterSchemas } from './register-router-schemas.js'
import { planEmbed } from './relations/embed-plan.js'
import { planLookup } from './relations/lookup-plan.js'
import { buildPopulator } from './relations/populate.js'
import { buildPopulateReader } from './relations/populate-reader.js'
import { collectionResource } from './resources/collection-resource.js'
import { embedResource } from './resources/embed-resource.js'
import { lookupResource } from './resources/lookup-resource.js'
import { buildEmbedRoutes } from './routes/embed-routes.js'
import { buildLookupRoutes } from './routes/lookup-routes.js'
import { buildMainRoutes, itemUrl } from './routes/main-routes.js'
import { HTTPErrorSchema, ValidationErrorSchema } from './schema/error-schemas.js'
import { createFitCompiler } from './schema/fit-document.js'
import { type FitSource, withFittedResponses } from './schema/fit-response.js'
import { partialModel, refTo as ref } from './schema/partial-model.js'
import { isInlineBody, requestBody } from './schema/request-body.js'
import { restrictShape } from './schema/restrict-shape.js'
import { routerRefs } from './schema/router-refs.js'
import { buildCrudService } from './service/build-service.js'
import { buildShape, type ShapeNode } from './shapes/model-shape.js'
import { createCollectionStore } from './store/collection-store.js'

/**
 * The CRUDRouter plugin: resolves options once, registers the model schemas as named components,
 * builds one resource per kind (the collection, each lookup's children, each embed's items) and mounts
 * the routes that are not disabled over them, and the service API over the collection. It is
 * encapsulated on purpose, so `prefix` applies and its validator and error format stay inside its own routes.
 */
export async function CRUDRouter(fastify: FastifyInstance, rawOptions: CRUDRouterOptions): Promise<void> {
  const options = resolveRouterOptions(rawOptions)
  registerRouterModels(fastify, options)
  const { model } = options
  const { baseOut, patch, typed, visible, sortable, populator, out, policy } = routerShapes(options)

  // What a create or replace sends (schema/request-body.ts): a model with defaulted fields is written inline,
  // and is then a component only where it is the answer too (an unused component is a lint warning).
  const body = requestBody(model)
  const store = createCollectionStore(options.db, options.collectionName, typed, { maxTimeMS: options.maxTimeMS })
  const context = buildRouterContext(
    options,
    store,
    { typed, visible, sortable, scopeShape: typed },
    // Populated references the caller may not follow are named by no client filter, sort or group (relations/populate.ts).
    { visible, typed, limits: options.filterLimits, guard: populator === undefined ? undefined : (field: string) => populator.guards(field) },
    { body, patch: ref(patch), read: ref(out) },
    populator === undefined ? async (doc) => doc : async (doc, caller) => (await populator.populate([doc], caller))[0]!, policy
  )
  appRegistry(fastify).addReader(options.db, options.collectionName, buildPopulateReader(context))
  const lookups = options.lookups.map((lookup) => planLookup(lookup, options, context))
  const embeds = options.embeds.map((embed) => planEmbed(embed, context))
  const childNames = [...lookups.map((plan) => plan.lookup.prefix), ...embeds.map((plan) => plan.embed.embedName)].map((name) => namingOf(identifierOf(name)))
  const place = `'${fastify.prefix === '' ? '/' : fastify.prefix}'`
  const naming = claimNaming(appRegistry(fastify), options, fastify.prefix, childNames, place)
  const { schemas, validatorCompiler } = registerRouterSchemas(fastify, options, [
    ...(isInlineBody(body) && options.modelOut !== undefined ? [] : [model]),
    baseOut,
    out,
    patch,
    HTTPErrorSchema as TSchema,
    ValidationErrorSchema as TSchema,
    ...(populator?.schemas ?? []),
    ...lookups.flatMap((plan) => plan.child.schemas),
    ...embeds.flatMap((plan) => plan.child.schemas),
  ], populator)
  for (const index of options.indexes) await store.ensureIndex(index)

  // Stored documents are fitted to the output model before they are serialized (docs/http-contract.md): lists
  // by their presenter, the routes answering one document by a hook (withFittedResponses).
  const compileFit = createFitCompiler(schemas)
  const presenter = listPresenters(compileFit, schemas)
  // Only the main list applies the scope, and ignores client filters unless the router ANDs them with it.
  const filtersIgnored = options.filterDependency !== undefined && options.filtersUnderScope === 'ignore'
  /** A generated route as it is registered: named for OpenAPI, its list parameters documented, its answers fitted. */
  const mount = (routes: RouteOptions[], spec: ListSpec, source: FitSource, own: Naming = naming, parent?: Naming) => {
    for (const route of routes) fastify.route(withFittedResponses(withListQueryDocs(withNames(route, own, parent), spec, options, filtersIgnored && parent === undefined), compileFit, source))
  }
  const source: FitSource = { collection: options.collectionName }
  // Every body check of each kind, built once (dispatch/body-checks.ts).
  const bodied = (bodies: Bodied['bodies'], url: string) => bodiedOf(validatorCompiler, bodies, url)
  const main = bodied({ create: context.refs.body, replace: context.refs.body, patch: context.refs.patch }, options.collectionName)
  const collection = collectionResource(context, presenter(out, source, populator), patching(main, out))
  mount(buildMainRoutes(context, collection, fastify.prefix), context.listSpec, source)
  // An open `_events` response would keep the server from closing: closing the app ends them (docs/events.md).
  fastify.addHook('preClose', async () => eventStreamsOf(context).closeAll())
  // `<prefix>/_batch` (docs/batch.md; `disableBatch` leaves it out), and `<item>/<lookup>/_batch` for each lookup's children.
  const batch = (endpoint: Endpoint, url: string, own: Naming, parent?: Naming) =>
    mountBatchRoute(fastify, { ...endpoint, db: options.db, maxOperations: options.maxBatchOperations }, url, batchNames(options.tags, own, parent), validatorCompiler)
  const endpoint = collectionEndpoint(context, collection, main)
  if (!options.disabledExtras.has('Batch')) batch(endpoint, `/${BATCH_SEGMENT}`, naming)
  lookups.forEach((plan, index) => {
    const children: FitSource = { collection: plan.lookup.collectionName }
    const kind = bodied({ create: ref(plan.createBody), replace: ref(plan.createBody), patch: ref(plan.child.patch) }, plan.lookup.collectionName)
    const resource = lookupResource(context, plan, presenter(plan.child.out, children), patching(kind, plan.child.out))
    mount(buildLookupRoutes(context, plan, resource, itemUrl(context)), plan.child.listSpec, children, childNames[index], naming)
    batch(lookupEndpoint(context, plan, resource, kind), `${itemUrl(context)}/${plan.lookup.prefix}/${BATCH_SEGMENT}`, childNames[index]!, naming)
  })
  embeds.forEach((plan, index) => {
    const items: FitSource = { collection: options.collectionName, embed: { field: plan.embed.embedName, parentParam: context.itemParam } }
    const kind = bodied({ create: ref(plan.child.model), patch: ref(plan.child.patch) }, `${options.collectionName}.${plan.embed.embedName}`)
    const resource = embedResource(context, plan, presenter(plan.child.out, items), patching(kind, plan.child.out))
    mount(buildEmbedRoutes(context, plan, resource, itemUrl(context)), plan.child.listSpec, items, childNames[lookups.length + index], naming)
  })
  // The same operations for handlers of the app's own (service/crud-service.ts), under the router's name.
  const service = buildCrudService(naming.plural, endpoint, validatorCompiler)
  appRegistry(fastify).addService(naming.plural, { service, model: options.model, modelOut: options.modelOut })
  // What the app's Data API endpoint (data-api/) reaches this router by: the same context, policy and dispatch.
  addDataSource(fastify, { name: naming.plural, context, endpoint, outModel: baseOut })
}

/** What a merge patch or JSON Patch of a kind is checked against: the PUT body's check (the create body's where the kind has no PUT), the fields shown. */
function patching({ checks }: Bodied, shown: MongoModelSchema) {
  return { check: checks.replace ?? checks.create, shown: new Set(Object.keys(shown.properties)) }
}

/** The router's models and shapes: what it stores, what clients may filter and sort on, what it answers. */
function routerShapes(options: ResolvedRouterOptions) {
  const declaredOut = options.modelOut ?? options.model
  const typed = buildShape(options.model)
  // What clients may name follows `$ref`s as the serializer does (the stored shape stays as it was).
  const outShape = buildShape(declaredOut, routerRefs(options))
  // What some role of the `access` policy does not see is named by no client and no policy filter: whoever
  // asks, a filter, an order or a grouping on it would reveal its values to the roles that do not see it.
  const policy = compileAccess(options.access, options.accessClaims, {
    collectionName: options.collectionName,
    fields: new Set(Object.keys(options.model.properties)),
    filterContext: (hidden) => ({ visible: withoutFields(outShape, hidden), typed, limits: options.filterLimits }),
  })
  if (policy !== undefined) refuseRoleHiddenPaths(options, policy)
  const shown = policy === undefined ? outShape : withoutFields(outShape, policy.hiddenByAnyRole)
  // Clients name only what responses show: `filterable`, `sortable` and `defaultSort` may not open a hidden path.
  refuseUnshownPaths(options, typed, shown)
  const visible = options.filterable === undefined ? shown : restrictShape(typed, options.filterable, shown)
  const sortable = options.sortable === undefined ? shown : restrictShape(typed, options.sortable, shown)
  const baseOut = policy === undefined ? declaredOut : answerModel(declaredOut, policy.hiddenByAnyRole)
  const populator = buildPopulator(options, baseOut, typed)
  return { baseOut, patch: partialModel(options.model), typed, visible, sortable, populator, out: populator?.outSchema ?? baseOut, policy }
}

/**
 * The answers' model under a policy: a field some role does not see may be missing from an answer, so
 * the output model's requirement of it is dropped (a model of its own, `<Model>Answer`, when it had one).
 */
function answerModel(declared: MongoModelSchema, hidden: ReadonlySet<string>): MongoModelSchema {
  const required = ((declared as { required?: string[] }).required ?? []) as string[]
  if (!required.some((field) => hidden.has(field))) return declared
  const properties = Object.fromEntries(Object.entries(declared.properties).map(([field, schema]) => [field, hidden.has(field) ? Type.Optional(schema) : schema]))
  return MongoModelOut(`${declared.$id}Answer`, properties) as unknown as MongoModelSchema
}

/** A shape without some top-level fields (those a role of the policy does not see). */
function withoutFields(shape: ShapeNode, hidden: ReadonlySet<string>): ShapeNode {
  if (hidden.size === 0 || shape.kind !== 'object') return shape
  return { ...shape, fields: new Map([...shape.fields].filter(([name]) => !hidden.has(name))) }
}

/** `filterable`, `sortable` and `defaultSort` may not name a field a role does not see (its values would show through). */
function refuseRoleHiddenPaths(options: ResolvedRouterOptions, policy: AccessPolicy): void {
  const named = [
    ...(['filterable', 'sortable'] as const).flatMap((key) => (options[key] ?? []).map((path, position) => [`${key}[${position}]`, path] as const)),
    ...(options.defaultSort === undefined ? [] : [['defaultSort.field', options.defaultSort.field] as const]),
  ]
  for (const [option, path] of named) {
    const top = path.split('.')[0]!
    const role = policy.roles.find((candidate) => candidate.hiddenFields.includes(top))
    if (role !== undefined) {
      throw new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: '${option}' names '${path}', which the access role '${role.role}' does not see: a filter or an order on it would reveal its values to that role`)
    }
  }
}
