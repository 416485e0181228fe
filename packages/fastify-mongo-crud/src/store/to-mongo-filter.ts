import type { Condition, Filter, FilterValue } from '../query/filter.js'
import { IdRef } from '../query/filter.js'
import type { Document } from './driver-db.js'
import type { ObjectIds } from './object-id.js'

/**
 * Turns our filter AST into a MongoDB filter document. Every operator it can emit comes from the
 * AST's closed set, so nothing a client typed reaches the database as an operator.
 */
export function toMongoFilter(filter: Filter | undefined, ids: ObjectIds): Document {
  if (filter === undefined) return {}
  if (filter.kind === 'field') {
    // A lone equality is written `{ path: value }`, the form engines recognize for point lookups.
    const only = filter.conditions.length === 1 ? filter.conditions[0] : undefined
    if (only?.op === 'eq' && !isPlainObject(only.value)) return { [filter.path]: toMongoValue(only.value, ids) }
    return { [filter.path]: toConditions(filter.conditions, ids) }
  }
  if (filter.kind === 'and' && filter.items.every((item) => item.kind === 'field')) {
    // A conjunction of distinct fields is a plain filter document, which engines can use indexes on.
    const paths = new Set(filter.items.map((item) => (item as { path: string }).path))
    if (paths.size === filter.items.length) return Object.assign({}, ...filter.items.map((item) => toMongoFilter(item, ids)))
  }
  return { [`$${filter.kind}`]: filter.items.map((item) => toMongoFilter(item, ids)) }
}

function toConditions(conditions: Condition[], ids: ObjectIds): Document {
  const out: Document = {}
  for (const condition of conditions) {
    switch (condition.op) {
      case 'in':
      case 'nin':
      case 'all':
        out[`$${condition.op}`] = condition.values.map((value) => toMongoValue(value, ids))
        break
      case 'regex':
        out['$regex'] = condition.pattern
        if (condition.options !== '') out['$options'] = condition.options
        break
      case 'not':
        out['$not'] = toConditions(condition.conditions, ids)
        break
      case 'elemMatchValue':
        out['$elemMatch'] = toConditions(condition.conditions, ids)
        break
      case 'elemMatchDoc':
        out['$elemMatch'] = toMongoFilter(condition.filter, ids)
        break
      case 'exists':
      case 'size':
        out[`$${condition.op}`] = condition.value
        break
      default:
        out[`$${condition.op}`] = toMongoValue(condition.value, ids)
    }
  }
  return out
}

function toMongoValue(value: FilterValue, ids: ObjectIds): unknown {
  if (value instanceof IdRef) return ids.fromHex(value.hex)
  if (Array.isArray(value)) return value.map((item) => toMongoValue(item, ids))
  if (value !== null && typeof value === 'object') {
    const out: Document = {}
    for (const [key, sub] of Object.entries(value)) out[key] = toMongoValue(sub, ids)
    return out
  }
  return value
}

function isPlainObject(value: FilterValue): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof IdRef)
}
