import { didYouMean } from '../did-you-mean.js'
import type { MongoModelSchema } from '../models.js'

type JsonSchema = Record<string, unknown>
/** What a field holds, coarsely: what the output fit could serve from what the model stores. */
type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'any'

const asSchema = (value: unknown): JsonSchema => (typeof value === 'object' && value !== null ? (value as JsonSchema) : {})

/**
 * Checks that every field an output model declares is a field of the input model, of a compatible kind
 * (an ObjectIdField is a string; integer and number are one kind). A field the model does not have
 * would never be served (a typo in `modelOut`), so it is a setup error. `populated` fields may be typed
 * as the documents they are replaced by. Returns the first mismatch as a sentence, or undefined.
 */
export function checkModelOut(model: MongoModelSchema, modelOut: MongoModelSchema, populated: ReadonlySet<string> = new Set()): string | undefined {
  return checkObject(model as unknown as JsonSchema, modelOut as unknown as JsonSchema, '', populated)
}

function checkObject(model: JsonSchema, out: JsonSchema, path: string, populated: ReadonlySet<string>): string | undefined {
  const modelFields = asSchema(model['properties'])
  const open = model['properties'] === undefined || (model['additionalProperties'] !== undefined && model['additionalProperties'] !== false)
  for (const [name, outField] of Object.entries(asSchema(out['properties']))) {
    const field = path === '' ? name : `${path}.${name}`
    if (path === '' && name === 'id') continue
    const modelField = modelFields[name]
    if (modelField === undefined) {
      if (open) continue
      return `'${field}' is not a field of the model${didYouMean(name, Object.keys(modelFields))}`
    }
    if (path === '' && populated.has(name)) continue
    const mismatch = checkField(asSchema(modelField), asSchema(outField), field, populated)
    if (mismatch !== undefined) return mismatch
  }
  return undefined
}

function checkField(model: JsonSchema, out: JsonSchema, field: string, populated: ReadonlySet<string>): string | undefined {
  const modelKinds = kindsOf(model)
  const outKinds = kindsOf(out)
  if (modelKinds.has('any') || outKinds.has('any') || modelKinds.size === 0 || outKinds.size === 0) return undefined
  const shared = [...outKinds].filter((kind) => modelKinds.has(kind))
  if (shared.length === 0) {
    return `'${field}' is ${[...outKinds].join(' or ')} in modelOut but ${[...modelKinds].join(' or ')} in the model`
  }
  if (shared.includes('object')) {
    const [modelObject, outObject] = [variant(model, 'object'), variant(out, 'object')]
    if (modelObject !== undefined && outObject !== undefined) return checkObject(modelObject, outObject, field, populated)
  }
  if (shared.includes('array')) {
    const [modelArray, outArray] = [variant(model, 'array'), variant(out, 'array')]
    if (modelArray !== undefined && outArray !== undefined) {
      return checkField(asSchema(modelArray['items']), asSchema(outArray['items']), `${field}[]`, populated)
    }
  }
  return undefined
}

function variants(schema: JsonSchema): JsonSchema[] {
  const union = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined
  return Array.isArray(union) ? union.map(asSchema).flatMap(variants) : [schema]
}

function variant(schema: JsonSchema, kind: Kind): JsonSchema | undefined {
  return variants(schema).find((v) => kindsOf(v, false).has(kind))
}

function kindsOf(schema: JsonSchema, expand = true): Set<Kind> {
  const kinds = new Set<Kind>()
  for (const v of expand ? variants(schema) : [schema]) {
    if (typeof v['$ref'] === 'string') {
      kinds.add('any')
      continue
    }
    const declared = v['type']
    const types = Array.isArray(declared) ? declared : declared === undefined ? (v['properties'] !== undefined ? ['object'] : []) : [declared]
    if (types.length === 0 && v['const'] === undefined) kinds.add('any')
    if (v['const'] !== undefined) kinds.add(kindOfValue(v['const']))
    for (const type of types) {
      if (type === 'null') continue
      kinds.add(type === 'integer' ? 'number' : (type as Kind))
    }
  }
  return kinds
}

function kindOfValue(value: unknown): Kind {
  if (Array.isArray(value)) return 'array'
  const type = typeof value
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? type : 'any'
}
