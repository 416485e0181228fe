import type { ShapeNode } from './shape-node.js'

type ObjectNode = Extract<ShapeNode, { kind: 'object' }>

const ANY: ShapeNode = { kind: 'any' }

/**
 * The shape of a value that may be any of `nodes` (a union: `anyOf`, `oneOf`). A sub-path exists when
 * some variant declares it, and may hold what any of them holds there; the result is closed unless a
 * variant is open. A variant that takes anything (`{}`, `Type.Any`, an unresolved `$ref`) makes the
 * union take anything: the serializer then writes such a value whole.
 */
export function unionOf(nodes: readonly ShapeNode[]): ShapeNode {
  if (nodes.some((node) => node.kind === 'any')) return ANY
  // Only `null` (dropped before): no value but null fits, as before unions were merged.
  if (nodes.length === 0) return { kind: 'scalar', types: new Set() }
  return nodes.slice(1).reduce(merge, nodes[0]!)
}

/**
 * The shape of a value that is all of `nodes` at once (an intersection: `allOf`, or a schema's own
 * type beside its `anyOf`): the properties of every part. A part that declares no type of its own
 * (`{}`, a bare `required` list) adds no property: the serializer merges the parts into one schema,
 * where such a part opens nothing, so it opens nothing here either.
 */
export function intersectionOf(nodes: readonly ShapeNode[]): ShapeNode {
  const typed = nodes.filter((node) => node.kind !== 'any')
  if (typed.length === 0) return ANY
  return typed.slice(1).reduce(merge, typed[0]!)
}

/** One node for two shapes a value may have at the same path. */
function merge(a: ShapeNode, b: ShapeNode): ShapeNode {
  if (a.kind === 'any' || b.kind === 'any') return ANY
  // MongoDB paths reach through arrays: `T[] | U` is read as an array whose items may be T or U.
  if (a.kind === 'array' || b.kind === 'array') return { kind: 'array', item: merge(itemOf(a), itemOf(b)) }
  if (a.kind === 'object' || b.kind === 'object') return mergeObjects(asObject(a), asObject(b))
  if (a.kind === 'objectId' && b.kind === 'objectId') return a
  return { kind: 'scalar', types: new Set([...scalarTypes(a), ...scalarTypes(b)]) }
}

function mergeObjects(a: ObjectNode, b: ObjectNode): ObjectNode {
  const fields = new Map(declaredFields(a))
  for (const [name, node] of declaredFields(b)) {
    const known = fields.get(name)
    fields.set(name, known === undefined ? node : merge(known, node))
  }
  const scalars = new Set([...(a.scalars ?? []), ...(b.scalars ?? [])])
  return { kind: 'object', fields, isDocument: false, open: a.open || b.open, ...(scalars.size > 0 ? { scalars } : {}) }
}

/**
 * A merged object is no document: the codec then keeps its keys as sent, so a document variant's
 * `_id` is named `id` again, as it is stored and as clients name it.
 */
function declaredFields(node: ObjectNode): Iterable<[string, ShapeNode]> {
  if (!node.isDocument) return node.fields
  return [...node.fields].map(([name, sub]): [string, ShapeNode] => [name === '_id' ? 'id' : name, sub])
}

/** A scalar (or ObjectId) variant beside an object: an object node that also takes those values. */
function asObject(node: Exclude<ShapeNode, { kind: 'any' | 'array' }>): ObjectNode {
  if (node.kind === 'object') return node
  return { kind: 'object', fields: new Map(), isDocument: false, open: false, scalars: new Set(scalarTypes(node)) }
}

/** ObjectIds travel as 24-hex strings: beside other types they are compared as the text clients send. */
function scalarTypes(node: Extract<ShapeNode, { kind: 'scalar' | 'objectId' }>): Iterable<string> {
  return node.kind === 'objectId' ? ['string'] : node.types
}

function itemOf(node: ShapeNode): ShapeNode {
  return node.kind === 'array' ? node.item : node
}
