import type { TSchema } from 'typebox'

/**
 * What the storage and query layers need to know about a model, read once from its JSON Schema:
 * which paths hold ObjectIds, which objects are documents (their `id` is `_id` in the database),
 * and which paths exist at all (for the closed filter grammar).
 */
export type ShapeNode =
  | { kind: 'objectId' }
  | { kind: 'object', fields: Map<string, ShapeNode>, isDocument: boolean, open: boolean }
  | { kind: 'array', item: ShapeNode }
  | { kind: 'scalar', types: Set<string> }
  | { kind: 'any' }

type JsonSchema = Record<string, unknown>

const asSchema = (value: unknown): JsonSchema => (typeof value === 'object' && value !== null ? (value as JsonSchema) : {})

/** `refs` resolves `$ref`s to models registered by `$id` (populated fields, embedded item models). */
export function buildShape(schema: TSchema, refs: ReadonlyMap<string, TSchema> = new Map()): ShapeNode {
  return walk(asSchema(schema), refs, new Set())
}

function walk(schema: JsonSchema, refs: ReadonlyMap<string, TSchema>, seen: Set<string>): ShapeNode {
  const ref = schema['$ref']
  if (typeof ref === 'string') {
    const id = ref.replace(/#$/, '')
    const target = refs.get(id)
    if (target === undefined || seen.has(id)) return { kind: 'any' }
    return walk(asSchema(target), refs, new Set([...seen, id]))
  }
  const variants = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined
  if (Array.isArray(variants)) {
    // Nullable fields are `anyOf: [T, null]`: the shape is T's, null is accepted by every node.
    const nonNull = variants.map(asSchema).filter((v) => v['type'] !== 'null')
    if (nonNull.length === 1) return walk(nonNull[0]!, refs, seen)
    const nodes = nonNull.map((v) => walk(v, refs, seen))
    if (nodes.every((n) => n.kind === 'scalar')) {
      return { kind: 'scalar', types: new Set(nodes.flatMap((n) => [...(n as { types: Set<string> }).types])) }
    }
    return { kind: 'any' }
  }
  if (schema['format'] === 'objectid') return { kind: 'objectId' }
  const type = schema['type']
  if (type === 'object' || schema['properties'] !== undefined) {
    const properties = asSchema(schema['properties'])
    const fields = new Map<string, ShapeNode>()
    for (const [name, sub] of Object.entries(properties)) {
      // A document's `id` is stored as `_id`; the shape speaks the database's names.
      fields.set(name === 'id' && isDocumentSchema(schema) ? '_id' : name, walk(asSchema(sub), refs, seen))
    }
    // Only declared fields exist for filters and sorting, unless the schema opens itself up explicitly
    // (`additionalProperties: true` or a schema, as Type.Record does): responses drop undeclared fields
    // too, so a field a client cannot see is a field it cannot filter on.
    const extra = schema['additionalProperties']
    const open = schema['properties'] === undefined || (extra !== undefined && extra !== false)
    return { kind: 'object', fields, isDocument: isDocumentSchema(schema), open }
  }
  if (type === 'array') return { kind: 'array', item: walk(asSchema(schema['items']), refs, seen) }
  if (typeof type === 'string') return { kind: 'scalar', types: new Set([type === 'integer' ? 'number' : type]) }
  if (Array.isArray(type)) return { kind: 'scalar', types: new Set(type.map((t) => (t === 'integer' ? 'number' : String(t)))) }
  return { kind: 'any' }
}

/** Documents (models made by MongoModel / MongoModelOut) carry an `id` property and a `$id`. */
function isDocumentSchema(schema: JsonSchema): boolean {
  return typeof schema['$id'] === 'string' && asSchema(schema['properties'])['id'] !== undefined
}

/** The node at a dotted database path, stepping through arrays transparently (MongoDB's path semantics). */
export function nodeAt(root: ShapeNode, path: readonly string[]): ShapeNode | undefined {
  let node: ShapeNode | undefined = root
  for (const segment of path) {
    // `tags.0` addresses an element; any other segment reaches through the array into its items.
    if (node?.kind === 'array' && /^\d+$/.test(segment)) {
      node = node.item
      continue
    }
    while (node?.kind === 'array') node = node.item
    if (node === undefined) return undefined
    if (node.kind === 'any') return node
    if (node.kind !== 'object') return undefined
    const next: ShapeNode | undefined = node.fields.get(segment)
    if (next === undefined) return node.open ? { kind: 'any' } : undefined
    node = next
  }
  return node
}
