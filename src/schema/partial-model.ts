import { type TObject, Type } from 'typebox'
import type { MongoModelSchema } from '../models.js'

/** A PATCH body (`<Model>Patch`): every field optional, unknown keys still rejected. */
export function partialModel(model: MongoModelSchema): MongoModelSchema {
  return { ...Type.Partial(model as unknown as TObject), $id: `${model.$id}Patch`, additionalProperties: false } as unknown as MongoModelSchema
}

/** A reference to a model registered by its `$id` (a named OpenAPI component). */
export const refTo = (schema: MongoModelSchema) => ({ $ref: `${schema.$id}#` })
