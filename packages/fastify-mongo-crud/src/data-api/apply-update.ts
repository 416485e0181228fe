import { isRecord } from '../is-record.js'
import type { FilterContext } from '../query/parse-filter.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import type { WireDoc } from '../store/store.js'
import { compareValues, sameValue } from './bson-order.js'
import { invalidParameter } from './data-api-error.js'
import { setValueAt, unsetValueAt, valueAt } from './document-paths.js'
import type { ParsedUpdate, UpdateChange } from './parse-update.js'
import { pullCondition } from './pull-condition.js'

/** What applying an update needs besides the document: the shapes `$pull` conditions are read against, and whether it inserts. */
export interface UpdateTarget {
  readonly shown: ShapeNode
  readonly filterContext: FilterContext
  /** An upsert's insert: `$setOnInsert` applies. */
  readonly inserting: boolean
  /** The time `$currentDate` writes: one instant for every document of one request. */
  readonly now: Date
}

/**
 * The document an update makes of `doc` (a copy), as MongoDB's operators make it, in wire form (ids as
 * hex, dates as ISO text). Only what the changes name changes; a type the operator cannot apply to
 * (`$inc` on text, `$push` on a number) is 400 with MongoDB's words. Whether the model takes the result
 * is the dispatch's to say (the PATCH's check of the whole document).
 */
export function applyUpdate(doc: WireDoc, update: ParsedUpdate, target: UpdateTarget): WireDoc {
  const after = structuredClone(doc)
  for (const change of update.changes) apply(after, change, target)
  return after
}

function apply(doc: WireDoc, change: UpdateChange, target: UpdateTarget): void {
  const { operator, path, operand } = change
  const current = valueAt(doc, path)
  const at = path.join('.')
  switch (operator) {
    case '$setOnInsert':
      if (target.inserting) setValueAt(doc, path, structuredClone(operand))
      return
    case '$set':
      setValueAt(doc, path, structuredClone(operand))
      return
    case '$unset':
      unsetValueAt(doc, path)
      return
    case '$currentDate':
      setValueAt(doc, path, target.now.toISOString())
      return
    case '$inc':
    case '$mul': {
      if (current !== undefined && typeof current !== 'number') throw invalidParameter(`update: cannot apply ${operator} to a value of non-numeric type (the field '${at}')`)
      const base = current ?? 0
      // A missing field: `$inc` sets the amount, `$mul` sets 0 (MongoDB's rule).
      setValueAt(doc, path, operator === '$inc' ? base + (operand as number) : base * (operand as number))
      return
    }
    case '$min':
    case '$max': {
      const order = current === undefined ? 0 : compareValues(operand, current)
      if (current === undefined || (operator === '$min' ? order < 0 : order > 0)) setValueAt(doc, path, structuredClone(operand))
      return
    }
    case '$rename':
      if (current === undefined) return
      unsetValueAt(doc, path)
      setValueAt(doc, operand as string[], current)
      return
    default:
      applyToArray(doc, change, current, target)
      return
  }
}

/** `$push`, `$addToSet`, `$pull`, `$pullAll` and `$pop`: each on an array (a missing one is created by the first two). */
function applyToArray(doc: WireDoc, { operator, path, operand }: UpdateChange, current: unknown, target: UpdateTarget): void {
  const at = path.join('.')
  if (current !== undefined && !Array.isArray(current)) throw invalidParameter(`update: cannot apply ${operator} to a non-array value (the field '${at}')`)
  const items = [...((current as unknown[] | undefined) ?? [])]
  if (current === undefined && operator !== '$push' && operator !== '$addToSet') return
  switch (operator) {
    case '$push':
      setValueAt(doc, path, pushed(items, operand))
      return
    case '$addToSet': {
      for (const value of eachOf(operand)) if (!items.some((item) => sameValue(item, value))) items.push(structuredClone(value))
      setValueAt(doc, path, items)
      return
    }
    case '$pull': {
      const node = nodeAt(target.shown, path)
      const matches = pullCondition(operand, node?.kind === 'array' ? node.item : { kind: 'any' }, target.filterContext, at)
      setValueAt(doc, path, items.filter((item) => !matches(item)))
      return
    }
    case '$pullAll':
      setValueAt(doc, path, items.filter((item) => !(operand as unknown[]).some((value) => sameValue(item, value))))
      return
    case '$pop':
      setValueAt(doc, path, operand === 1 ? items.slice(0, -1) : items.slice(1))
      return
    default:
  }
}

/** The values of `$push` or `$addToSet`: `$each`'s, or the operand itself. */
function eachOf(operand: unknown): unknown[] {
  return isRecord(operand) && Array.isArray(operand['$each']) ? operand['$each'] : [operand]
}

/** `$push` with its modifiers, applied in MongoDB's order: insert at `$position`, then `$sort`, then `$slice`. */
function pushed(items: unknown[], operand: unknown): unknown[] {
  const values = eachOf(operand).map((value) => structuredClone(value))
  const modifiers = isRecord(operand) && Array.isArray(operand['$each']) ? operand : {}
  const position = modifiers['$position'] as number | undefined
  const at = position === undefined ? items.length : position < 0 ? Math.max(0, items.length + position) : Math.min(position, items.length)
  let result = [...items.slice(0, at), ...values, ...items.slice(at)]
  const sort = modifiers['$sort'] as 1 | -1 | Record<string, 1 | -1> | undefined
  if (sort !== undefined) result = [...result].sort((a, b) => sortOrder(a, b, sort))
  const slice = modifiers['$slice'] as number | undefined
  if (slice !== undefined) result = slice >= 0 ? result.slice(0, slice) : result.slice(slice)
  return result
}

function sortOrder(a: unknown, b: unknown, sort: 1 | -1 | Record<string, 1 | -1>): number {
  if (typeof sort === 'number') return sort * compareValues(a, b)
  for (const [field, direction] of Object.entries(sort)) {
    const order = compareValues(valueAt(a, field.split('.')), valueAt(b, field.split('.')))
    if (order !== 0) return direction * order
  }
  return 0
}
