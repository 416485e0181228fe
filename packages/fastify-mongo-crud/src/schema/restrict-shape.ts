import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'

/**
 * A shape holding only the given dotted paths (and what lies below them), for the `filterable` and
 * `sortable` options. Paths use the wire names (`id` is `_id`). Below a path the output model
 * (`shown`) shows, only what it shows: listing `owner` must not open `owner.ssn` when responses drop
 * it. A path it hides is refused at registration (options/shown-paths.ts), and would open nothing here.
 */
export function restrictShape(full: ShapeNode, paths: readonly string[], shown: ShapeNode = full): ShapeNode {
  const root: ShapeNode = { kind: 'object', fields: new Map(), isDocument: full.kind === 'object' && full.isDocument, open: false }
  for (const path of paths) {
    const segments = path.split('.')
    if (segments[0] === 'id') segments[0] = '_id'
    let target = root as Extract<ShapeNode, { kind: 'object' }>
    segments.forEach((segment, index) => {
      if (index === segments.length - 1) {
        const node = nodeAt(shown, segments)
        if (node !== undefined) target.fields.set(segment, node)
        return
      }
      let next = target.fields.get(segment)
      if (next === undefined || next.kind !== 'object') {
        next = { kind: 'object', fields: new Map(), isDocument: false, open: false }
        target.fields.set(segment, next)
      }
      target = next
    })
  }
  return root
}
