import { type TProperties, type TSchema, Type } from 'typebox'
import { isRecord } from '../is-record.js'
import { type InModel, MongoModel, MongoModelOut, type OutModel } from '../models.js'
import { OBJECT_ID_PATTERN } from '../shapes/object-id.js'
import type { ApiFile, JsonSchemaObject, ModelDeclaration, ModelUse } from './api-file.js'

/**
 * The file's JSON Schema models as the library's models (what MongoModel / MongoModelOut make from
 * TypeBox, which is JSON Schema too): `id` added, unknown keys refused, optional fields those that
 * `required` does not list. One object per name, so that routers sharing a model share it.
 */
export class ModelCatalog {
  readonly #api: ApiFile
  readonly #made = new Map<string, InModel | OutModel>()
  /** Output models derived from `hidden`, by name, with the field list that made them. */
  readonly #derived = new Map<string, string>()

  constructor(api: ApiFile) {
    this.#api = api
  }

  input(name: string): InModel {
    return this.#make(name, 'in') as InModel
  }

  /** The output model of a router, lookup or embed: its `modelOut`, the model without its `hidden` fields, or none. */
  output(use: ModelUse, owner: string): OutModel | undefined {
    if (use.modelOut !== undefined) return this.#make(use.modelOut, 'out') as OutModel
    if (use.hidden === undefined) return undefined
    const declared = this.#declared(use.model)
    const shown = Object.keys(declared.properties).filter((field) => !use.hidden?.includes(field))
    // `<Model>Out`, unless a declared model or another hidden list already took that name.
    let name = `${use.model}Out`
    const key = shown.join(',')
    if (this.#api.models[name] !== undefined || (this.#derived.has(name) && this.#derived.get(name) !== key)) name = `${use.model}Out_${owner.replace(/[^A-Za-z0-9_]/g, '_')}`
    const made = this.#made.get(`out:${name}`)
    if (made !== undefined) return made as OutModel
    this.#derived.set(name, key)
    const model = MongoModelOut(name, toProperties({ ...declared, properties: Object.fromEntries(shown.map((f) => [f, declared.properties[f]!])) }))
    this.#made.set(`out:${name}`, model)
    return model
  }

  #declared(name: string): ModelDeclaration {
    const declared = this.#api.models[name]
    if (declared === undefined) throw new Error(`unknown model '${name}'`)
    return declared
  }

  #make(name: string, kind: 'in' | 'out'): InModel | OutModel {
    const key = `${kind}:${name}`
    let model = this.#made.get(key)
    if (model === undefined) {
      const declared = this.#declared(name)
      model = (kind === 'in' ? MongoModel : MongoModelOut)(name, toProperties(declared))
      for (const annotation of ['title', 'description'] as const) {
        if (declared[annotation] !== undefined) (model as unknown as Record<string, unknown>)[annotation] = declared[annotation]
      }
      this.#made.set(key, model)
    }
    return model
  }
}

function toProperties(declared: ModelDeclaration): TProperties {
  const required = new Set(declared.required ?? [])
  return Object.fromEntries(
    Object.entries(declared.properties).map(([name, field]) => {
      const schema = toField(field) as TSchema
      return [name, required.has(name) ? schema : Type.Optional(schema)]
    })
  )
}

/** A copy of a field's schema; references (`format: objectid`) get the pattern ObjectIdField gives them. */
function toField(field: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = { ...field }
  if (out['format'] === 'objectid' && out['pattern'] === undefined) out['pattern'] = OBJECT_ID_PATTERN
  if (isRecord(out['items'])) out['items'] = toField(out['items'])
  if (isRecord(out['additionalProperties'])) out['additionalProperties'] = toField(out['additionalProperties'])
  if (isRecord(out['properties'])) {
    out['properties'] = Object.fromEntries(Object.entries(out['properties']).map(([name, sub]) => [name, toField(sub as JsonSchemaObject)]))
  }
  if (Array.isArray(out['anyOf'])) out['anyOf'] = out['anyOf'].map((sub: JsonSchemaObject) => toField(sub))
  return out
}
