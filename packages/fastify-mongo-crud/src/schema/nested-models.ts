/** Keywords whose values are data, not schemas: an `$id` key in them is data. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required'])
/** Keywords whose value maps names to schemas: a key there is a name (a field may be called `$id`). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

type Node = Record<string, unknown>

/**
 * The named models (`$id`) nested in a schema below its root, at any depth: `tags: Type.Array(Tag)`
 * puts `Tag` inside `Post`. They name one model app-wide as a router's own models do.
 */
export function nestedModels(schema: unknown): Node[] {
  const found: Node[] = []
  walk(schema, true, (node) => found.push(node))
  return found
}

/**
 * A copy of `schema` whose nested named models are anonymous (the root keeps its `$id`); `schema`
 * itself when it nests none. Ajv and fast-json-stringify register every `$id` they meet, nested ones
 * too, and refuse one id for two schemas that differ: the router derives copies of a model (a PATCH
 * body without defaults, an output without `required`) whose nested `Tag` is no longer `Tag` itself.
 * Each model is registered by its own root, so a nested copy needs no name of its own.
 */
export function withoutNestedIds<T>(schema: T): T {
  return nestedModels(schema).length === 0 ? schema : (copy(schema, true) as T)
}

function isModelId(value: unknown): value is string {
  return typeof value === 'string' && !value.startsWith('#')
}

function walk(schema: unknown, root: boolean, visit: (node: Node) => void): void {
  if (Array.isArray(schema)) {
    for (const item of schema) walk(item, false, visit)
    return
  }
  if (typeof schema !== 'object' || schema === null) return
  const node = schema as Node
  if (!root && isModelId(node['$id'])) visit(node)
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      for (const sub of Object.values(value)) walk(sub, false, visit)
    } else walk(value, false, visit)
  }
}

function copy(schema: unknown, root: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => copy(item, false))
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Node = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' && !root && isModelId(value)) continue
    if (DATA_KEYWORDS.has(key)) out[key] = value
    else if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, copy(sub, false)]))
    } else out[key] = copy(value, false)
  }
  return out
}
