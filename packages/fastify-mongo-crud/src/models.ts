import { type TObject, type TProperties, type TSchema, Type, type Static as TypeBoxStatic } from 'typebox'
import { OBJECT_ID_PATTERN } from './shapes/object-id.js'

/**
 * Models are plain TypeBox object schemas, branded so that option checks (CRUDPopulate, CRUDRouter)
 * can tell an input model from an output model. The brand is a non-enumerable symbol: it never reaches
 * JSON Schema, OpenAPI or Ajv. Its type is the brand at compile time too, so passing an output model
 * where an input model is expected fails to compile, not only at registration.
 */
const MODEL_KIND: unique symbol = Symbol.for('fastify-mongo-crud.model-kind')

export type ModelKind = 'in' | 'out'
/** What routers and relations accept as a model: an object schema with a name. */
export type MongoModelSchema = TSchema & { $id: string, type: 'object', properties: TProperties }

/** The brand as types see it; an interface, so that declarations emitted for a user's models can name it. */
export interface ModelBrand<K extends ModelKind> {
  readonly [MODEL_KIND]: K
}
/** An input model, as `MongoModel()` returns it. */
export type InModel = MongoModelSchema & ModelBrand<'in'>
/** An output model, as `MongoModelOut()` returns it. */
export type OutModel = MongoModelSchema & ModelBrand<'out'>

/** The TypeScript type of the documents a model (or any TypeBox schema) describes. */
export type Static<T extends TSchema> = TypeBoxStatic<T>

/** A reference to another document: a 24-hex string on the wire, an ObjectId in the database. */
export function ObjectIdField(options: { description?: string } = {}) {
  return Type.String({ format: 'objectid', pattern: OBJECT_ID_PATTERN, ...options })
}

function brand<T extends TObject, K extends ModelKind>(schema: T, kind: K): T & { $id: string } & ModelBrand<K> {
  Object.defineProperty(schema, MODEL_KIND, { value: kind, enumerable: false })
  return schema as T & { $id: string } & ModelBrand<K>
}

function checkName(name: unknown, factory: string): asserts name is string {
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new TypeError(`${factory}: the model name must be an identifier-like string, received ${JSON.stringify(name)}`)
  }
}

/**
 * An input model: validates request bodies. Adds `id`, an optional nullable ObjectId (`_id` in the database).
 * Unknown keys are rejected (`additionalProperties: false`).
 */
export function MongoModel<P extends TProperties>(name: string, properties: P) {
  checkName(name, 'MongoModel')
  const schema = Type.Object(
    // readOnly: OpenAPI clients and Swagger UI's "Try it out" leave it out of create and replace bodies
    // (the server still accepts an id; validation ignores the annotation).
    { id: Type.Optional(Type.Union([ObjectIdField(), Type.Null()], { readOnly: true })), ...properties },
    { $id: name, additionalProperties: false }
  )
  return brand(schema, 'in')
}

/** An output model: shapes responses. Adds `id` as a string; fields it does not list never leave the server. */
export function MongoModelOut<P extends TProperties>(name: string, properties: P) {
  checkName(name, 'MongoModelOut')
  const schema = Type.Object({ id: Type.String(), ...properties }, { $id: name, additionalProperties: false })
  return brand(schema, 'out')
}

function modelKind(value: unknown): ModelKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  return (value as Record<symbol, ModelKind | undefined>)[MODEL_KIND]
}

export const isModel = (value: unknown): value is MongoModelSchema => modelKind(value) === 'in'
export const isModelOut = (value: unknown): value is MongoModelSchema => modelKind(value) === 'out'

export type { TSchema }
