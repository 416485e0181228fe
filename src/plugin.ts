import type { FastifyInstance } from 'fastify'
import { type TObject, type TSchema, Type } from 'typebox'
import { handleError } from './error-handler.js'
import type { MongoModelSchema } from './models.js'
import { type CRUDRouterOptions, resolveRouterOptions } from './options.js'
import { buildCreateRoute } from './routes/create.js'
import { buildListRoute } from './routes/list.js'
import { buildReadRoute } from './routes/read.js'
import { buildRemoveRoute } from './routes/remove.js'
import { buildReplaceRoute } from './routes/replace.js'
import { buildRouterContext } from './routes/router-context.js'
import { buildUpdateRoute } from './routes/update.js'
import { HTTPErrorSchema, ValidationErrorSchema } from './schema/error-schemas.js'
import { buildShape } from './schema/model-shape.js'
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
  const out = options.modelOut ?? model
  const patch = partialModel(model)
  const schemas: TSchema[] = [model, out, patch, HTTPErrorSchema as TSchema, ValidationErrorSchema as TSchema]
  for (const schema of schemas) addSchemaOnce(fastify, schema)
  fastify.setValidatorCompiler(createValidatorCompiler(schemas))
  fastify.setSerializerCompiler(createSerializerCompiler(schemas))
  fastify.setErrorHandler(handleError)

  const typed = buildShape(model)
  const outShape = buildShape(out)
  const visible = options.filterable === undefined ? outShape : restrictShape(typed, options.filterable)
  const sortable = options.sortable === undefined ? outShape : restrictShape(typed, options.sortable)
  const store = createCollectionStore(options.db, options.collectionName, typed, { maxTimeMS: options.maxTimeMS })
  if (options.identifierField !== '_id') await store.ensureUnique(options.identifierField)

  const ref = (schema: MongoModelSchema) => ({ $ref: `${schema.$id}#` })
  const context = buildRouterContext(
    options,
    store,
    { typed, visible, sortable, scopeShape: typed },
    { visible, typed, limits: options.filterLimits },
    { body: ref(model), patch: ref(patch), out: ref(out) }
  )
  const serializeItem: (doc: WireDoc) => string = compileModelSerializer(out, schemas)

  // `''` under a prefix serves `/users` exactly; without a prefix the list lives at `/`.
  const listUrl = fastify.prefix === '' ? '/' : ''
  const itemUrl = `/:${context.itemParam}`
  const { disabled } = options
  if (!disabled.has('GetAll')) fastify.route(buildListRoute(context, listUrl, { serializeItem }))
  if (!disabled.has('CreateOne')) fastify.route(buildCreateRoute(context, listUrl))
  if (!disabled.has('GetOne')) fastify.route(buildReadRoute(context, itemUrl))
  if (!disabled.has('ReplaceOne')) fastify.route(buildReplaceRoute(context, itemUrl))
  if (!disabled.has('UpdateOne')) fastify.route(buildUpdateRoute(context, itemUrl))
  if (!disabled.has('DeleteOne')) fastify.route(buildRemoveRoute(context, itemUrl))
}

/** The PATCH body: every field optional, unknown keys still rejected. */
function partialModel(model: MongoModelSchema): MongoModelSchema {
  return { ...Type.Partial(model as unknown as TObject), $id: `${model.$id}Patch`, additionalProperties: false } as unknown as MongoModelSchema
}

/** Two routers may share a model (API versions): the component is registered once per scope chain. */
function addSchemaOnce(fastify: FastifyInstance, schema: TSchema): void {
  const id = (schema as { $id?: string }).$id
  if (id !== undefined && fastify.getSchema(id) === undefined) fastify.addSchema(schema)
}
