import type { FastifyInstance, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { appRegistry } from './app-registry.js'
import { withListQueryDocs } from './docs/list-query-docs.js'
import { claimNaming, identifierOf, type Naming, namingOf, withNames } from './docs/router-naming.js'
import { handleError } from './error-handler.js'
import { type CRUDRouterOptions, resolveRouterOptions } from './options.js'
import { registerRouterModels } from './register-router-models.js'
import { buildEmbedRoutes, planEmbed } from './relations/embed-routes.js'
import { buildLookupRoutes, planLookup } from './relations/lookup-routes.js'
import { buildPopulator, resolvePopulatesOnce } from './relations/populate.js'
import { buildPopulateReader } from './relations/populate-reader.js'
import { buildCreateRoute } from './routes/create.js'
import { buildListRoute } from './routes/list.js'
import { buildReadRoute } from './routes/read.js'
import { buildRemoveRoute } from './routes/remove.js'
import { buildReplaceRoute } from './routes/replace.js'
import { buildRouterContext } from './routes/router-context.js'
import type { ListPresenter } from './routes/serve-list.js'
import { buildUpdateRoute } from './routes/update.js'
import { HTTPErrorSchema, ValidationErrorSchema } from './schema/error-schemas.js'
import { createFitCompiler } from './schema/fit-document.js'
import { createDocumentFitter, type FitSource, withFittedResponses } from './schema/fit-response.js'
import { useJsonBodyParser } from './schema/json-body-parser.js'
import { buildShape } from './schema/model-shape.js'
import { partialModel, refTo as ref } from './schema/partial-model.js'
import { restrictShape } from './schema/restrict-shape.js'
import { routerRefs } from './schema/router-refs.js'
import { compileModelSerializer, createSerializerCompiler } from './schema/serializer.js'
import { createValidatorCompiler } from './schema/validator.js'
import { buildCrudService } from './service/build-service.js'
import { createCollectionStore } from './store/collection-store.js'

/**
 * The CRUDRouter plugin: resolves options once, registers the model schemas as named components,
 * and adds the routes that are not disabled. It is encapsulated on purpose, so `prefix` applies and
 * its validator and error format stay inside its own routes.
 */
export async function CRUDRouter(fastify: FastifyInstance, rawOptions: CRUDRouterOptions): Promise<void> {
  const options = resolveRouterOptions(rawOptions)
  registerRouterModels(fastify, options)
  const { model } = options
  const baseOut = options.modelOut ?? model
  const patch = partialModel(model)
  const typed = buildShape(model)
  // What clients may name follows `$ref`s as the serializer does (the stored shape stays as it was).
  const outShape = buildShape(baseOut, routerRefs(options))
  const visible = options.filterable === undefined ? outShape : restrictShape(typed, options.filterable, outShape)
  const sortable = options.sortable === undefined ? outShape : restrictShape(typed, options.sortable, outShape)
  const populator = buildPopulator(options, baseOut, typed)
  const out = populator?.outSchema ?? baseOut

  const store = createCollectionStore(options.db, options.collectionName, typed, { maxTimeMS: options.maxTimeMS })
  const context = buildRouterContext(
    options,
    store,
    { typed, visible, sortable, scopeShape: typed },
    { visible, typed, limits: options.filterLimits },
    { body: ref(model), patch: ref(patch), read: ref(out) },
    populator === undefined ? async (doc) => doc : async (doc, caller) => (await populator.populate([doc], caller))[0]!
  )
  appRegistry(fastify).addReader(options.db, options.collectionName, buildPopulateReader(context))
  const lookups = options.lookups.map((lookup) => planLookup(lookup, options, context))
  const embeds = options.embeds.map((embed) => planEmbed(embed, context))
  const lookupNames = lookups.map((plan) => namingOf(identifierOf(plan.lookup.prefix)))
  const embedNames = embeds.map((plan) => namingOf(identifierOf(plan.embed.embedName)))
  const place = `'${fastify.prefix === '' ? '/' : fastify.prefix}'`
  const naming = claimNaming(appRegistry(fastify), options, fastify.prefix, [...lookupNames, ...embedNames], place)
  /** A generated route as it is registered: named for OpenAPI, its list parameters documented, its answers fitted. */
  const documented = (route: RouteOptions, sortableShape: typeof sortable, source: FitSource, parent?: Naming, own: Naming = naming) =>
    withFittedResponses(withListQueryDocs(withNames(route, own, parent), sortableShape, options), compileFit, source)

  // Every schema the routes refer to, registered once: named components in OpenAPI, and the
  // external schemas of this router's validator and serializers.
  const schemas = uniqueById([
    model,
    baseOut,
    out,
    patch,
    HTTPErrorSchema as TSchema,
    ValidationErrorSchema as TSchema,
    ...(populator?.schemas ?? []),
    ...lookups.flatMap((plan) => plan.child.schemas),
    ...embeds.flatMap((plan) => plan.child.schemas),
  ])
  for (const schema of schemas) addSchemaOnce(fastify, schema)
  const validatorCompiler = createValidatorCompiler(schemas)
  fastify.setValidatorCompiler(validatorCompiler)
  const resolvePopulates = resolvePopulatesOnce(fastify, options.db, populator)
  fastify.setSerializerCompiler(createSerializerCompiler(schemas, resolvePopulates))
  fastify.addHook('onReady', async () => resolvePopulates())
  fastify.setErrorHandler(handleError)
  useJsonBodyParser(fastify)
  for (const index of options.indexes) await store.ensureIndex(index)

  // Stored documents are fitted to the output model before they are serialized (DESIGN §2b): lists
  // by their presenter, the routes answering one document by a hook (withFittedResponses).
  const compileFit = createFitCompiler(schemas)
  /** How the documents of one list are shown, with the output model `schema`. */
  const presenter = (schema: TSchema, source: FitSource, populate?: ListPresenter['populate']): ListPresenter => {
    let serialize: ((doc: unknown) => string) | undefined
    return {
      collection: source.collection,
      populate,
      fit: createDocumentFitter(compileFit, schema, source),
      // Compiled on first use: a populated schema is complete once the app is ready.
      serialize: (doc) => {
        serialize ??= compileModelSerializer(schema, schemas)
        return serialize(doc)
      },
    }
  }
  const source: FitSource = { collection: options.collectionName }
  // `''` under a prefix serves `/users` exactly; without a prefix the list lives at `/`.
  const listUrl = fastify.prefix === '' ? '/' : ''
  const itemUrl = `/:${context.itemParam}`
  const { disabled } = options
  const routes: RouteOptions[] = []
  const mainPresenter = presenter(out, source, populator === undefined ? undefined : (docs, caller) => populator.populate(docs, caller))
  if (!disabled.has('GetAll')) routes.push(buildListRoute(context, listUrl, mainPresenter))
  if (!disabled.has('CreateOne')) routes.push(buildCreateRoute(context, listUrl))
  if (!disabled.has('GetOne')) routes.push(buildReadRoute(context, itemUrl))
  if (!disabled.has('ReplaceOne')) routes.push(buildReplaceRoute(context, itemUrl))
  if (!disabled.has('UpdateOne')) routes.push(buildUpdateRoute(context, itemUrl))
  if (!disabled.has('DeleteOne')) routes.push(buildRemoveRoute(context, itemUrl))
  for (const route of routes) fastify.route(documented(route, sortable, source))
  lookups.forEach((plan, index) => {
    const children: FitSource = { collection: plan.lookup.collectionName }
    for (const route of buildLookupRoutes(context, plan, itemUrl, presenter(plan.child.out, children))) {
      fastify.route(documented(route, plan.child.listSpec.sortable, children, naming, lookupNames[index]))
    }
  })
  embeds.forEach((plan, index) => {
    const items: FitSource = { collection: options.collectionName, embed: { field: plan.embed.embedName, parentParam: context.itemParam } }
    for (const route of buildEmbedRoutes(context, plan, itemUrl, presenter(plan.child.out, items))) {
      fastify.route(documented(route, plan.child.listSpec.sortable, items, naming, embedNames[index]))
    }
  })
  // The same operations for handlers of the app's own (service/crud-service.ts), under the router's name.
  const service = buildCrudService(naming.plural, context, mainPresenter, validatorCompiler)
  appRegistry(fastify).addService(naming.plural, { service, model: options.model, modelOut: options.modelOut })
}

function uniqueById(schemas: TSchema[]): TSchema[] {
  const byId = new Map<string, TSchema>()
  for (const schema of schemas) byId.set((schema as { $id: string }).$id, byId.get((schema as { $id: string }).$id) ?? schema)
  return [...byId.values()]
}


/** Two routers may share a model (API versions): the component is registered once per scope chain. */
function addSchemaOnce(fastify: FastifyInstance, schema: TSchema): void {
  const id = (schema as { $id?: string }).$id
  if (id !== undefined && fastify.getSchema(id) === undefined) fastify.addSchema(schema)
}
