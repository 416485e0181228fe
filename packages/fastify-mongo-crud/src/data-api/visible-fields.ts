import type { ShapeNode } from '../shapes/model-shape.js'

type Document = Record<string, unknown>

/**
 * What a caller sees of a collection: the router's output model (hidden = not in it), less the top-level
 * fields its role does not see. Every answer is pruned to it, and an aggregate's first stage projects
 * the documents onto it (an inclusion projection), so no hidden value is answered or seen by a stage.
 */
export function shownShape(shown: ShapeNode, hidden: ReadonlySet<string>): ShapeNode {
  if (hidden.size === 0 || shown.kind !== 'object') return shown
  const fields = new Map([...shown.fields].filter(([name]) => !hidden.has(name)))
  return { ...shown, fields }
}

/**
 * The inclusion projection of a shape's paths (`{ "name": 1, "address.city": 1 }`): a closed object
 * is reached field by field (an array's items through it, as MongoDB's projection does), anything else
 * whole. An open top level (a model with `additionalProperties`) cannot be listed: its role-hidden
 * fields are excluded instead.
 */
export function projectionOf(shape: ShapeNode, hidden: ReadonlySet<string> = new Set()): Document {
  if (shape.kind !== 'object' || shape.open) return Object.fromEntries([...hidden].map((field) => [field, 0]))
  const paths: string[] = []
  collect(shape, '', paths)
  // `_id` comes back unless excluded: listed, it is plain which fields the projection reads.
  return Object.fromEntries(paths.map((path) => [path, 1]))
}

function collect(node: ShapeNode, prefix: string, paths: string[]): void {
  if (node.kind === 'array') {
    collect(node.item, prefix, paths)
    return
  }
  if (node.kind !== 'object' || node.open) {
    if (prefix !== '') paths.push(prefix)
    return
  }
  for (const [name, sub] of node.fields) collect(sub, prefix === '' ? name : `${prefix}.${name}`, paths)
}

/**
 * A document pruned to a shape: a closed object keeps the fields it declares, anything else is kept
 * whole. The values are left as they are (the Data API answers documents as stored).
 */
export function prunedTo(value: unknown, node: ShapeNode): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return node.kind === 'array' ? value.map((item) => prunedTo(item, node.item)) : value.map((item) => prunedTo(item, node))
  if (node.kind === 'array') return prunedTo(value, node.item)
  if (node.kind !== 'object' || node.open || isBsonValue(value)) return value
  const out: Document = {}
  for (const [name, sub] of node.fields) if (Object.hasOwn(value, name)) out[name] = prunedTo((value as Document)[name], sub)
  return out
}

/** A BSON value (an ObjectId, a Date, a Decimal128...), which is a value, never a sub-document to prune. */
function isBsonValue(value: object): boolean {
  return value instanceof Date || typeof (value as { _bsontype?: unknown })._bsontype === 'string'
}
