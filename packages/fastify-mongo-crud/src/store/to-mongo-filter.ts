import { isRecord } from '../is-record.js'
import type { Condition, Filter, FilterValue } from '../query/filter.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { isObjectIdHex, type ObjectIds } from '../shapes/object-id.js'
import type { Document } from './driver-db.js'

const ANY: ShapeNode = { kind: 'any' }

/**
 * Turns our filter AST into a MongoDB filter document. Every operator it can emit comes from the
 * AST's closed set, so nothing a client typed reaches the database as an operator. The AST speaks
 * the API's terms; `shape` (the stored model's) says where they differ from the database's: the
 * identifier `id` is `_id`, and hex strings in ObjectId fields are ObjectIds (of the store's driver, `ids`).
 */
export function toMongoFilter(filter: Filter | undefined, shape: ShapeNode, ids: ObjectIds): Document {
  if (filter === undefined) return {}
  if (filter.kind === 'field') {
    const path = toMongoPath(filter.path, shape)
    const node = nodeAt(shape, path.split('.')) ?? ANY
    // A lone equality is written `{ path: value }`, the form engines recognize for point lookups.
    const only = filter.conditions.length === 1 ? filter.conditions[0] : undefined
    if (only?.op === 'eq' && !isRecord(only.value)) return { [path]: toMongoValue(only.value, node, ids) }
    return { [path]: toConditions(filter.conditions, node, ids) }
  }
  if (filter.kind === 'and' && filter.items.every((item) => item.kind === 'field')) {
    // A conjunction of distinct fields is a plain filter document, which engines can use indexes on.
    const paths = new Set(filter.items.map((item) => (item as { path: string }).path))
    if (paths.size === filter.items.length) return Object.assign({}, ...filter.items.map((item) => toMongoFilter(item, shape, ids)))
  }
  return { [`$${filter.kind}`]: filter.items.map((item) => toMongoFilter(item, shape, ids)) }
}

/** A path as the API names it (`id.x`) as the database does (`_id.x`), in a document of `shape`. */
export function toMongoPath(path: string, shape: ShapeNode): string {
  const isDocument = shape.kind === 'object' && shape.isDocument
  return isDocument && (path === 'id' || path.startsWith('id.')) ? `_${path}` : path
}

function toConditions(conditions: Condition[], node: ShapeNode, ids: ObjectIds): Document {
  const out: Document = {}
  for (const condition of conditions) {
    switch (condition.op) {
      case 'in':
      case 'nin':
      case 'all':
        out[`$${condition.op}`] = condition.values.map((value) => toMongoValue(value, node, ids))
        break
      case 'regex':
        out['$regex'] = condition.pattern
        if (condition.options !== '') out['$options'] = condition.options
        break
      case 'not':
        out['$not'] = toConditions(condition.conditions, node, ids)
        break
      case 'elemMatchValue':
        out['$elemMatch'] = toConditions(condition.conditions, itemOf(node), ids)
        break
      case 'elemMatchDoc':
        out['$elemMatch'] = toMongoFilter(condition.filter, itemOf(node), ids)
        break
      case 'exists':
      case 'size':
        out[`$${condition.op}`] = condition.value
        break
      default:
        out[`$${condition.op}`] = toMongoValue(condition.value, node, ids)
    }
  }
  return out
}

/** A value compared with a field of `node`: hex strings become ObjectIds where the field holds them. */
function toMongoValue(value: FilterValue, node: ShapeNode, ids: ObjectIds): unknown {
  if (node.kind === 'objectId') return isObjectIdHex(value) ? ids.fromHex(value) : value
  // An array literal is compared element by element; anything else compared with an array field
  // matches its elements (the grammar's rule, parse-filter.ts).
  if (Array.isArray(value)) return value.map((item) => toMongoValue(item, itemOf(node), ids))
  if (node.kind === 'array') return toMongoValue(value, node.item, ids)
  if (value !== null && typeof value === 'object') {
    const out: Document = {}
    for (const [key, sub] of Object.entries(value)) out[key] = toMongoValue(sub, node.kind === 'object' ? (node.fields.get(key) ?? ANY) : ANY, ids)
    return out
  }
  return value
}

/** The items of an array field (or the field itself when it is not one). */
function itemOf(node: ShapeNode): ShapeNode {
  return node.kind === 'array' ? node.item : node
}
