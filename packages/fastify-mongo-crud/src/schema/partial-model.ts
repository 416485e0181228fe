import { type TObject, Type } from 'typebox'
import type { MongoModelSchema } from '../models.js'

/**
 * A PATCH body (`<Model>Patch`): every field optional, unknown keys still rejected, and no `default`
 * at any depth. The validator fills defaults (`useDefaults`), which is right for create and replace
 * but would make a PATCH overwrite stored values with them; the PATCH's OpenAPI shows none either.
 */
export function partialModel(model: MongoModelSchema): MongoModelSchema {
  const partial = { ...Type.Partial(model as unknown as TObject), $id: `${model.$id}Patch`, additionalProperties: false }
  return withoutDefaults(partial) as unknown as MongoModelSchema
}

/** Keywords whose value maps names to schemas: a key there is a field name, never a keyword. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
/** Keywords whose value is data, not a schema. */
const DATA = new Set(['const', 'enum', 'examples', 'required'])

function withoutDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDefaults)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  // Own enumerable string keys only: TypeBox's symbol-keyed markers are not JSON Schema.
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'default') continue
    out[key] = DATA.has(key) ? value : SCHEMA_MAPS.has(key) ? mapValues(value) : withoutDefaults(value)
  }
  return out
}

function mapValues(map: unknown): unknown {
  if (map === null || typeof map !== 'object') return map
  return Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, withoutDefaults(sub)]))
}

/** A reference to a model registered by its `$id` (a named OpenAPI component). */
export const refTo = (schema: MongoModelSchema) => ({ $ref: `${schema.$id}#` })
