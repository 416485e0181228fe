import type { FastifyInstance, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { handleError } from './error-handler.js'
import { type CRUDRouterOptions, resolveRouterOptions } from './options.js'
import { buildEmbedRoutes, planEmbed } from './relations/embed-routes.js'
import { buildLookupRoutes, planLookup } from './relations/lookup-routes.js'
import { buildPopulator } from './relations/populate.js'
import { buildCreateRoute } from './routes/create.js'
import { buildListRoute } from './routes/list.js'
import { buildReadRoute } from './routes/read.js'
import { buildRemoveRoute } from './routes/remove.js'
import { buildReplaceRoute } from './routes/replace.js'
import { buildRouterContext } from './routes/router-context.js'
import { buildUpdateRoute } from './routes/update.js'
import { HTTPErrorSchema, ValidationErrorSchema } from './schema/error-schemas.js'
import { useJsonBodyParser } from './schema/json-body-parser.js'
import { buildShape } from './schema/model-shape.js'
import { partialModel, refTo as ref } from './schema/partial-model.js'
import { restrictShape } from './schema/restrict-shape.js'
import { compileModelSerializer, createSerializerCompiler } from './schema/serializer.js'
import { createValidatorCompiler } from './schema/validator.js'
import { createCollectionStore } from './store/collection-store.js'
import type { WireDoc } from './store/store.js'

/**
 * The CRUDRouter plugin: resolves options once, registers the model schemas as named components,
 * and adds the routes that are not disabled. It is encapsulated on purpose, so `prefix` applies and
 * its validator and error format stay inside its own routes.
 */
export async function CRUDRouter(fastify: FastifyInstance, rawOptions: CRUDRouterOptions): Promise<void> {
  const options = resolveRouterOptions(rawOptions)
  const { model } = options
  const baseOut = options.modelOut ?? model
  const patch = partialModel(model)
  const typed = buildShape(model)
  const outShape = buildShape(baseOut)
  const visible = options.filterable === undefined ? outShape : restrictShape(typed, options.filterable)
  const sortable = options.sortable === undefined ? outShape : restrictShape(typed, options.sortable)
  const populator = buildPopulator(options, baseOut, typed)
  const out = populator?.outSchema ?? baseOut

  const store = createCollectionStore(options.db, options.collectionName, typed, { maxTimeMS: options.maxTimeMS })
  const context = buildRouterContext(
    options,
    store,
    { typed, visible, sortable, scopeShape: typed },
    { visible, typed, limits: options.filterLimits },
    { body: ref(model), patch: ref(patch), read: ref(out) },
    populator === undefined ? async (doc) => doc : async (doc) => (await populator.populate([doc]))[0]!
  )
  const lookups = options.lookups.map((lookup) => planLookup(lookup, options, context))
  const embeds = options.embeds.map((embed) => planEmbed(embed, context))

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
  fastify.setValidatorCompiler(createValidatorCompiler(schemas))
  fastify.setSerializerCompiler(createSerializerCompiler(schemas))
  fastify.setErrorHandler(handleError)
  useJsonBodyParser(fastify)
  if (options.identifierField !== '_id') await store.ensureUnique(options.identifierField)

  const serializeItem: (doc: WireDoc) => string = compileModelSerializer(out, schemas)
  const populate = populator === undefined ? undefined : (docs: WireDoc[]) => populator.populate(docs)
  // `''` under a prefix serves `/users` exactly; without a prefix the list lives at `/`.
  const listUrl = fastify.prefix === '' ? '/' : ''
  const itemUrl = `/:${context.itemParam}`
  const { disabled } = options
  const routes: RouteOptions[] = []
  if (!disabled.has('GetAll')) routes.push(buildListRoute(context, listUrl, { serializeItem, transformPage: populate }))
  if (!disabled.has('CreateOne')) routes.push(buildCreateRoute(context, listUrl))
  if (!disabled.has('GetOne')) routes.push(buildReadRoute(context, itemUrl))
  if (!disabled.has('ReplaceOne')) routes.push(buildReplaceRoute(context, itemUrl))
  if (!disabled.has('UpdateOne')) routes.push(buildUpdateRoute(context, itemUrl))
  if (!disabled.has('DeleteOne')) routes.push(buildRemoveRoute(context, itemUrl))
  for (const plan of lookups) routes.push(...buildLookupRoutes(context, plan, itemUrl, schemas))
  for (const plan of embeds) routes.push(...buildEmbedRoutes(context, plan, itemUrl))
  for (const route of routes) fastify.route(route)
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
