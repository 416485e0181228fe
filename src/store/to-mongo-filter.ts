import { ObjectId } from 'mongodb'
import type { Condition, Filter, FilterValue } from '../query/filter.js'
import { IdRef } from '../query/filter.js'
import type { Document } from './driver-db.js'

/**
 * Turns our filter AST into a MongoDB filter document. Every operator it can emit comes from the
 * AST's closed set, so nothing a client typed reaches the database as an operator.
 */
export function toMongoFilter(filter: Filter | undefined): Document {
  if (filter === undefined) return {}
  if (filter.kind === 'field') return { [filter.path]: toConditions(filter.conditions) }
  return { [`$${filter.kind}`]: filter.items.map(toMongoFilter) }
}

function toConditions(conditions: Condition[]): Document {
  const out: Document = {}
  for (const condition of conditions) {
    switch (condition.op) {
      case 'in':
      case 'nin':
      case 'all':
        out[`$${condition.op}`] = condition.values.map(toMongoValue)
        break
      case 'regex':
        out['$regex'] = condition.pattern
        if (condition.options !== '') out['$options'] = condition.options
        break
      case 'not':
        out['$not'] = toConditions(condition.conditions)
        break
      case 'elemMatchValue':
        out['$elemMatch'] = toConditions(condition.conditions)
        break
      case 'elemMatchDoc':
        out['$elemMatch'] = toMongoFilter(condition.filter)
        break
      case 'exists':
      case 'size':
        out[`$${condition.op}`] = condition.value
        break
      default:
        out[`$${condition.op}`] = toMongoValue(condition.value)
    }
  }
  return out
}

export function toMongoValue(value: FilterValue): unknown {
  if (value instanceof IdRef) return ObjectId.createFromHexString(value.hex)
  if (Array.isArray(value)) return value.map(toMongoValue)
  if (value !== null && typeof value === 'object') {
    const out: Document = {}
    for (const [key, sub] of Object.entries(value)) out[key] = toMongoValue(sub)
    return out
  }
  return value
}
