// Reading the JSON Schemas of the OpenAPI document: what a field holds, and which control edits it.

export type Schema = Record<string, unknown>

let components: Record<string, Schema> = {}

/** The document's `components.schemas`, which `$ref`s point into. */
export function setComponents(schemas: Record<string, Schema> | undefined): void {
  components = schemas ?? {}
}

/** The schema a `$ref` names, followed as far as it goes. */
export function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {}
  for (let hops = 0; typeof current['$ref'] === 'string' && hops < 20; hops++) {
    const name = (current['$ref'] as string).replace('#/components/schemas/', '')
    current = components[name] ?? {}
  }
  return current
}

/** The schema without its `null` alternative, and whether null is allowed. */
export function nonNull(schema: Schema | undefined): { schema: Schema, nullable: boolean } {
  const resolved = resolve(schema)
  const alternatives = (resolved['anyOf'] ?? resolved['oneOf']) as Schema[] | undefined
  if (Array.isArray(alternatives)) {
    const others = alternatives.filter((alternative) => resolve(alternative)['type'] !== 'null')
    const nullable = others.length < alternatives.length
    if (others.length === 1) return { schema: resolve(others[0]), nullable }
    return { schema: { ...resolved, anyOf: others }, nullable }
  }
  const type = resolved['type']
  if (Array.isArray(type) && type.includes('null')) {
    const rest = type.filter((t) => t !== 'null')
    return { schema: { ...resolved, type: rest.length === 1 ? rest[0] : rest }, nullable: true }
  }
  return { schema: resolved, nullable: false }
}

/** The values of an enum, or of an `anyOf` of `const`s; undefined for anything else. */
export function choices(schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema['enum'])) return schema['enum'] as unknown[]
  const alternatives = schema['anyOf'] as Schema[] | undefined
  if (Array.isArray(alternatives) && alternatives.every((alternative) => 'const' in resolve(alternative))) {
    return alternatives.map((alternative) => resolve(alternative)['const'])
  }
  return undefined
}

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'json'

/** Which control edits a value of this schema. */
export function kindOf(schema: Schema): FieldKind {
  if (choices(schema) !== undefined) return 'choice'
  const type = schema['type']
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type
  return 'json'
}

/** An object schema's properties, and which are required. */
export function propertiesOf(schema: Schema | undefined): { properties: Record<string, Schema>, required: Set<string> } {
  const resolved = nonNull(schema).schema
  return {
    properties: (resolved['properties'] as Record<string, Schema> | undefined) ?? {},
    required: new Set((resolved['required'] as string[] | undefined) ?? []),
  }
}

/** The schema of a dotted path (`address.city`) below an object schema; arrays give their items'. */
export function schemaAt(schema: Schema | undefined, path: string): Schema | undefined {
  let current: Schema | undefined = schema
  for (const segment of path.split('.')) {
    let node = nonNull(current).schema
    while (node['type'] === 'array') node = nonNull(node['items'] as Schema | undefined).schema
    current = propertiesOf(node).properties[segment]
    if (current === undefined) return undefined
  }
  let node = nonNull(current).schema
  while (node['type'] === 'array') node = nonNull(node['items'] as Schema | undefined).schema
  return node
}
