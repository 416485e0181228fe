import fastJson from 'fast-json-stringify'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import type { TSchema } from 'typebox'

const OBJECT_ID = /^[0-9a-fA-F]{24}$/

/**
 * Response serializers built from the route schemas with the router's models as external schemas.
 * Only fields the output model declares are written, which is what keeps hidden fields (a password)
 * out of every response. The `objectid` format is declared so the serializer's own Ajv knows it.
 */
export function createSerializerCompiler(models: readonly TSchema[]): FastifySerializerCompiler<TSchema> {
  const external = externalSchemas(models)
  return ({ schema }) => fastJson(schema as fastJson.Schema, { schema: external, ajv: { formats: { objectid: OBJECT_ID } } })
}

/** One serializer for a model itself (used to stream list items one by one). */
export function compileModelSerializer(model: TSchema, models: readonly TSchema[]): (value: unknown) => string {
  return fastJson(model as fastJson.Schema, { schema: externalSchemas(models), ajv: { formats: { objectid: OBJECT_ID } } })
}

function externalSchemas(models: readonly TSchema[]): Record<string, fastJson.Schema> {
  const external: Record<string, fastJson.Schema> = {}
  for (const model of models) {
    const id = (model as { $id?: string }).$id
    if (id !== undefined) external[id] = model as fastJson.Schema
  }
  return external
}
