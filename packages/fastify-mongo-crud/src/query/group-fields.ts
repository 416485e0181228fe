import type { TSchema } from 'typebox'
import type { ShapeNode } from '../shapes/model-shape.js'

type JsonSchema = Record<string, unknown>

/** One field `by` and `metrics` may name, as the models declare it. */
export interface GroupField {
  /** Its JSON Schema (without defaults or annotations of requests), for the answer's documentation. */
  readonly schema: JsonSchema
  /** It holds numbers: `sum` and `avg` apply. */
  readonly numeric: boolean
  /** Declared an integer: its sums are kept exact, or refused (docs/groups.md). */
  readonly integer: boolean
}

/** The fields a kind of resource lets clients group by and measure: those they may filter on. */
export interface GroupFields {
  /** What clients may filter on (the list's `filters` shape): the one rule of what may be named. */
  readonly visible: ShapeNode
  /** The single-valued paths of `visible` the models list, in the API's names (`id`, `address.city`). */
  readonly listed: ReadonlyMap<string, GroupField>
  /** False when an open object (or too many fields) leaves paths unlisted: an answer may hold other keys. */
  readonly complete: boolean
}

/** Paths listed at most; past it the answer's schema names no field (as `sort_by`'s documentation does). */
const MAX_LISTED_PATHS = 200

/**
 * The groupable fields: every path of `visible` that holds one value (not an object, not through an
 * array), with its JSON Schema from `schemas` (the output model first, then the stored one, for a path
 * only the shape resolves). `refs` resolves the models' `$ref`s.
 */
export function groupFields(visible: ShapeNode, schemas: readonly TSchema[], refs: ReadonlyMap<string, TSchema>): GroupFields {
  const listed = new Map<string, GroupField>()
  let complete = true
  const walk = (node: ShapeNode, path: readonly string[]): void => {
    if (node.kind === 'array') return
    if (node.kind === 'any') complete = false
    if (node.kind === 'object') {
      if (node.open || node.scalars !== undefined) complete = false
      for (const [name, child] of node.fields) walk(child, [...path, path.length === 0 && name === '_id' && node.isDocument ? 'id' : name])
      return
    }
    const schema = schemaAt(schemas, path, refs) ?? schemaOfNode(node)
    listed.set(path.join('.'), { schema: forAnswers(schema), numeric: isNumeric(node), integer: isInteger(schema, refs) })
  }
  walk(visible, [])
  if (listed.size > MAX_LISTED_PATHS) return { visible, listed: new Map(), complete: false }
  return { visible, listed, complete }
}

/** The schema of `path` in the first of `schemas` that declares it, following properties and `$ref`s. */
function schemaAt(schemas: readonly TSchema[], path: readonly string[], refs: ReadonlyMap<string, TSchema>): JsonSchema | undefined {
  for (const root of schemas) {
    let schema: JsonSchema | undefined = resolve(root as JsonSchema, refs)
    for (const segment of path) {
      const properties = schema?.['properties'] as Record<string, JsonSchema> | undefined
      schema = properties === undefined || !Object.hasOwn(properties, segment) ? undefined : resolve(properties[segment]!, refs)
    }
    if (schema !== undefined) return schema
  }
  return undefined
}

function resolve(schema: JsonSchema, refs: ReadonlyMap<string, TSchema>): JsonSchema {
  const ref = schema['$ref']
  if (typeof ref !== 'string') return schema
  return (refs.get(ref.replace(/#$/, '')) as JsonSchema | undefined) ?? {}
}

/** What the shape alone says of a field no schema declares plainly (a union of models). */
function schemaOfNode(node: ShapeNode): JsonSchema {
  if (node.kind === 'objectId') return { type: 'string', format: 'objectid' }
  if (node.kind === 'scalar') return node.types.size === 1 ? { type: [...node.types][0] } : { type: [...node.types] }
  return {}
}

/** Keywords that say something about a request, not about a value an answer holds. */
const REQUEST_ONLY = new Set(['$id', 'default', 'readOnly', 'writeOnly', 'examples'])

function forAnswers(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !REQUEST_ONLY.has(key)))
}

function isNumeric(node: ShapeNode): boolean {
  return node.kind === 'any' || (node.kind === 'scalar' && node.types.has('number'))
}

/** Declared `integer`, alone or with null. */
function isInteger(schema: JsonSchema, refs: ReadonlyMap<string, TSchema>): boolean {
  if (schema['type'] === 'integer') return true
  const variants = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined
  if (!Array.isArray(variants)) return false
  const values = variants.map((variant) => resolve(variant, refs)).filter((variant) => variant['type'] !== 'null')
  return values.length > 0 && values.every((variant) => isInteger(variant, refs))
}
