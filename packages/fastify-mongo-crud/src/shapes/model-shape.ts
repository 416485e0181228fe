import type { TSchema } from 'typebox'
import { intersectionOf, unionOf } from './merge-shapes.js'

import type { ShapeNode } from './shape-node.js'

export type { ShapeNode }

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
  // A schema's own type, its union and its intersection all hold at once. Unions and intersections
  // are built from their variants, never taken as "anything": the serializer writes only what some
  // variant declares, so a sub-field no variant shows must stay out of filters and sorting.
  const parts: ShapeNode[] = []
  const own = ownNode(schema, refs, seen)
  if (own !== undefined) parts.push(own)
  const variants = schema['anyOf'] ?? schema['oneOf']
  if (Array.isArray(variants)) {
    // Nullable fields are `anyOf: [T, null]`: the shape is T's, null is accepted by every node.
    const nonNull = variants.map(asSchema).filter((v) => v['type'] !== 'null')
    parts.push(unionOf(nonNull.map((v) => walk(v, refs, seen))))
  }
  const all = schema['allOf']
  if (Array.isArray(all)) parts.push(intersectionOf(all.map((v) => walk(asSchema(v), refs, seen))))
  return intersectionOf(parts)
}

/** What the schema's own keywords (`type`, `properties`, `format`) say; undefined when it declares no type. */
function ownNode(schema: JsonSchema, refs: ReadonlyMap<string, TSchema>, seen: Set<string>): ShapeNode | undefined {
  if (schema['format'] === 'objectid') return { kind: 'objectId' }
  const type = schema['type']
  if (type === 'object' || schema['properties'] !== undefined) return objectNode(schema, refs, seen)
  if (type === 'array') return { kind: 'array', item: walk(asSchema(schema['items']), refs, seen) }
  if (typeof type === 'string') return { kind: 'scalar', types: new Set([type === 'integer' ? 'number' : type]) }
  if (Array.isArray(type)) return { kind: 'scalar', types: new Set(type.map((t) => (t === 'integer' ? 'number' : String(t)))) }
  return undefined
}

function objectNode(schema: JsonSchema, refs: ReadonlyMap<string, TSchema>, seen: Set<string>): ShapeNode {
  const properties = asSchema(schema['properties'])
  const fields = new Map<string, ShapeNode>()
  for (const [name, sub] of Object.entries(properties)) {
    // A document's `id` is stored as `_id`; the shape speaks the database's names.
    fields.set(name === 'id' && isDocumentSchema(schema) ? '_id' : name, walk(asSchema(sub), refs, seen))
  }
  // Only declared fields exist for filters and sorting, unless the schema opens itself up explicitly
  // (`additionalProperties: true` or a schema, `patternProperties` as Type.Record has): responses drop
  // undeclared fields too, so a field a client cannot see is a field it cannot filter on. A bare
  // `{ type: 'object' }` is closed: the serializer writes it as `{}`.
  const extra = schema['additionalProperties']
  const patterns = Object.keys(asSchema(schema['patternProperties']))
  const open = (extra !== undefined && extra !== false) || patterns.length > 0
  return { kind: 'object', fields, isDocument: isDocumentSchema(schema), open }
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
