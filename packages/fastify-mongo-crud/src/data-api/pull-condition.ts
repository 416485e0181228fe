import { isRecord } from '../is-record.js'
import { partialEvaluate } from '../query/evaluate-filter.js'
import type { Condition, Filter } from '../query/filter.js'
import type { FilterContext } from '../query/parse-filter.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { sameValue } from './bson-order.js'
import { clientFilter } from './client-filter.js'
import { invalidParameter } from './data-api-error.js'

/** The field a condition on an item itself is asked of (`{ "$gte": 6 }` is `{ v: { "$gte": 6 } }` over `{ v: item }`). */
const ITEM = 'v'

/**
 * Which items a `$pull` removes, as MongoDB reads its condition: operators (`{ "$gte": 6 }`) apply to
 * each item, a document without operators (`{ "size": "L" }`) is a query over each item's fields, and
 * anything else is the value removed. Conditions go through the filter grammar, over the shape of the
 * array's items: only its operators and visible fields. A `$regex` is refused: the items are matched
 * here, in JavaScript, where only the database's linear-time matcher may run a client's pattern.
 */
export function pullCondition(condition: unknown, item: ShapeNode, base: FilterContext, path: string): (value: unknown) => boolean {
  if (!isRecord(condition)) return (value) => sameValue(value, condition)
  const keys = Object.keys(condition)
  const onItem = keys.length > 0 && keys.every((key) => key.startsWith('$'))
  const shape: ShapeNode = onItem ? { kind: 'object', fields: new Map([[ITEM, item]]), isDocument: false, open: false } : item
  const filter = clientFilter(onItem ? { [ITEM]: condition } : condition, { ...base, visible: shape, typed: shape, guard: undefined }, `update: $pull on "${path}"`)
  if (filter !== undefined && hasRegex(filter)) throw invalidParameter(`update: $pull on "${path}": $regex is not supported in a $pull condition`)
  if (filter === undefined) return () => true
  return (value) => {
    const doc = onItem ? { [ITEM]: value } : value
    return isRecord(doc) && partialEvaluate(filter, doc, () => true) === true
  }
}

function hasRegex(filter: Filter): boolean {
  if (filter.kind !== 'field') return filter.items.some(hasRegex)
  return filter.conditions.some(conditionHasRegex)
}

function conditionHasRegex(condition: Condition): boolean {
  switch (condition.op) {
    case 'regex':
      return true
    case 'not':
    case 'elemMatchValue':
      return condition.conditions.some(conditionHasRegex)
    case 'elemMatchDoc':
      return hasRegex(condition.filter)
    default:
      return false
  }
}
