import fastJson from 'fast-json-stringify'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import type { TSchema } from 'typebox'
import { OBJECT_ID_HEX } from '../shapes/object-id.js'
import { withoutNestedIds } from './nested-models.js'
import { withoutRequired } from './without-required.js'

const OBJECT_ID = OBJECT_ID_HEX

/**
 * Response serializers built from the route schemas with the router's models as external schemas.
 * Only fields the output model declares are written, which is what keeps hidden fields (a password)
 * out of every response. The `objectid` format is declared so the serializer's own Ajv knows it.
 * `required` is left out of what the serializer sees: documents are fitted to the output model first
 * (fit-document.ts), and a required field a stored document lacks is left out instead of failing.
 */
export function createSerializerCompiler(models: readonly TSchema[], prepare: () => void = () => {}): FastifySerializerCompiler<TSchema> {
  let external: Record<string, fastJson.Schema> | undefined
  return ({ schema }) => {
    // Serializers compile when the app gets ready, once every router registered: `prepare` may still
    // complete the models then (a populate taking its output model from another router).
    if (external === undefined) {
      prepare()
      external = externalSchemas(models)
    }
    return fastJson(serializable(schema), { schema: external, ajv: { formats: { objectid: OBJECT_ID } } })
  }
}

/** One serializer for a model itself (used to stream list items one by one). */
export function compileModelSerializer(model: TSchema, models: readonly TSchema[]): (value: unknown) => string {
  return fastJson(serializable(model), { schema: externalSchemas(models), ajv: { formats: { objectid: OBJECT_ID } } })
}

function externalSchemas(models: readonly TSchema[]): Record<string, fastJson.Schema> {
  const external: Record<string, fastJson.Schema> = {}
  for (const model of models) {
    const id = (model as { $id?: string }).$id
    if (id !== undefined) external[id] = serializable(model)
  }
  return external
}

/**
 * What the serializer sees of a schema: no `required`, and nested models anonymous (each model is an
 * external schema of its own; a nested copy under the same `$id` would be refused as another schema).
 */
function serializable(schema: TSchema): fastJson.Schema {
  return withoutRequired(withoutNestedIds(schema)) as fastJson.Schema
}
