import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { handleError } from './error-handler.js'
import type { ResolvedRouterOptions } from './options.js'
import { type Populator, resolvePopulatesOnce } from './relations/populate.js'
import { useJsonBodyParser } from './schema/json-body-parser.js'
import { createSerializerCompiler } from './schema/serializer.js'
import { createValidatorCompiler } from './schema/validator.js'

/**
 * Registers every schema a router's routes refer to, once: named components in OpenAPI, and the
 * external schemas of this router's validator and serializers. Sets the router's own validator,
 * serializer, error handler and JSON body parser (its plugin is encapsulated, so they stay inside
 * its routes). Answers the schemas and the validator compiler (the service API checks bodies with it).
 */
export function registerRouterSchemas(
  fastify: FastifyInstance,
  options: ResolvedRouterOptions,
  models: TSchema[],
  populator: Populator | undefined
): { schemas: TSchema[], validatorCompiler: FastifySchemaCompiler<TSchema> } {
  const schemas = uniqueById(models)
  for (const schema of schemas) addSchemaOnce(fastify, schema)
  const validatorCompiler = createValidatorCompiler(schemas)
  fastify.setValidatorCompiler(validatorCompiler)
  const resolvePopulates = resolvePopulatesOnce(fastify, options.db, populator)
  fastify.setSerializerCompiler(createSerializerCompiler(schemas, resolvePopulates))
  fastify.addHook('onReady', async () => resolvePopulates())
  fastify.setErrorHandler(handleError)
  useJsonBodyParser(fastify)
  return { schemas, validatorCompiler }
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
