import type { ShapeNode } from '../shapes/model-shape.js'
import type { Hint } from './type-hints.js'

/**
 * Shapes and hints changed at one path, as an aggregate's stages change the documents: each returns a
 * copy (the router's shapes are shared by every request). A path through an array reaches its items,
 * as MongoDB paths do.
 */

/** `node` with the node at `path` replaced by what `change` makes of it (undefined removes it). */
export function shapeWith(node: ShapeNode, path: readonly string[], change: (at: ShapeNode) => ShapeNode | undefined): ShapeNode {
  if (path.length === 0) return change(node) ?? node
  if (node.kind === 'array') return { kind: 'array', item: shapeWith(node.item, path, change) }
  if (node.kind !== 'object') return node
  const [head, ...rest] = path
  const fields = new Map(node.fields)
  const at = fields.get(head!)
  const next = at === undefined ? undefined : rest.length === 0 ? change(at) : shapeWith(at, rest, change)
  if (next === undefined) fields.delete(head!)
  else fields.set(head!, next)
  return { ...node, fields }
}

/** `hint` with the hint at `path` replaced by what `change` makes of it. */
export function hintWith(hint: Hint, path: readonly string[], change: (at: Hint) => Hint): Hint {
  if (path.length === 0) return change(hint)
  if (hint?.kind === 'array') return { kind: 'array', item: hintWith(hint.item, path, change) }
  if (hint?.kind !== 'object') return hint
  const [head, ...rest] = path
  const fields = new Map(hint.fields)
  const next = rest.length === 0 ? change(fields.get(head!)) : hintWith(fields.get(head!), rest, change)
  if (next === undefined) fields.delete(head!)
  else fields.set(head!, next)
  return { kind: 'object', fields }
}

/** An object shape (and hint) with `node` placed at a dotted path, creating the objects on the way. */
export function placeAt(fields: Map<string, ShapeNode>, hints: Map<string, Hint>, path: readonly string[], node: ShapeNode, hint: Hint): void {
  const [head, ...rest] = path
  if (rest.length === 0) {
    fields.set(head!, node)
    hints.set(head!, hint)
    return
  }
  const below = fields.get(head!)
  const subFields = below?.kind === 'object' ? new Map(below.fields) : new Map<string, ShapeNode>()
  const belowHint = hints.get(head!)
  const subHints = belowHint?.kind === 'object' ? new Map(belowHint.fields) : new Map<string, Hint>()
  placeAt(subFields, subHints, rest, node, hint)
  fields.set(head!, { kind: 'object', fields: subFields, isDocument: false, open: false })
  const present = [...subHints].filter((entry): entry is [string, NonNullable<Hint>] => entry[1] !== undefined)
  hints.set(head!, present.length === 0 ? undefined : { kind: 'object', fields: new Map(present) })
}
