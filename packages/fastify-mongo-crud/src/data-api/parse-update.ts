import { isRecord } from '../is-record.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { DataApiError, invalidParameter } from './data-api-error.js'

/** The update operators the endpoint takes: those that name fields and values, none that computes from the document. */
export const UPDATE_OPERATORS = ['$set', '$unset', '$inc', '$mul', '$min', '$max', '$push', '$addToSet', '$pull', '$pullAll', '$pop', '$setOnInsert', '$currentDate', '$rename'] as const
export type UpdateOperator = (typeof UPDATE_OPERATORS)[number]

/** One change of an update: an operator, the path it changes (split), its operand (a `$rename`'s target path, split). */
export interface UpdateChange {
  readonly operator: UpdateOperator
  readonly path: readonly string[]
  readonly operand: unknown
}

/** An update checked once: its changes in order, and the top-level fields they touch. */
export interface ParsedUpdate {
  readonly changes: readonly UpdateChange[]
  readonly fields: ReadonlySet<string>
}

const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', '_bsontype'])

/** What an update may name: the paths the caller sees, less the fields its role may not set. */
export interface UpdateScope {
  readonly shown: ShapeNode
  readonly readOnly: ReadonlySet<string>
}

/**
 * An `update` (`{ "$set": { "city": "Oslo" }, "$inc": { "visits": 1 } }`) checked before any document
 * is read: only the operators above (another is 400 naming it: `$where` has no place here, an
 * aggregation pipeline neither), only paths the caller sees (a hidden field is refused as an unknown
 * one is), never `_id`, never a field the role may not set, no positional operator, and no two
 * changes of one path (MongoDB's conflict rule). What the changes make is the model's to judge, later.
 */
export function parseUpdate(raw: unknown, scope: UpdateScope): ParsedUpdate {
  if (Array.isArray(raw)) throw invalidParameter('update: an aggregation pipeline is not supported here: use the update operators ($set, $inc, $push...)')
  if (!isRecord(raw) || Object.keys(raw).length === 0) throw invalidParameter("'update' must be an object of update operators ($set, $inc, $push...)")
  const changes: UpdateChange[] = []
  for (const [operator, fields] of Object.entries(raw)) {
    if (!operator.startsWith('$')) throw invalidParameter(`update: "${operator}" is no update operator: a replacement document is replaceOne's ('replacement')`)
    if (!(UPDATE_OPERATORS as readonly string[]).includes(operator)) throw invalidParameter(`update: operator ${operator} is not supported (supported: ${UPDATE_OPERATORS.join(', ')})`)
    if (!isRecord(fields)) throw invalidParameter(`update: ${operator} takes an object of fields`)
    for (const [path, operand] of Object.entries(fields)) {
      const change = { operator: operator as UpdateOperator, path: checkedPath(path, operator, scope), operand }
      checkOperand(change)
      // A `$rename`'s operand is a path too, checked as one (split, as every path of a change is).
      changes.push(operator === '$rename' ? { ...change, operand: checkedPath(operand as string, operator, scope) } : change)
    }
  }
  refuseConflicts(changes)
  const fields = new Set(changes.flatMap((change) => [change.path[0]!, ...(change.operator === '$rename' ? [(change.operand as string[])[0]!] : [])]))
  return { changes, fields }
}

/** A path an update changes, split: every segment a field name, the field one the caller sees and may set. */
function checkedPath(path: string, operator: string, scope: UpdateScope): string[] {
  const segments = path.split('.')
  if (segments.some((segment) => segment.startsWith('$'))) throw invalidParameter(`update: ${operator} on "${path}": positional operators ($, $[], $[<id>]) are not supported`)
  if (segments.some((segment) => segment === '' || FORBIDDEN_SEGMENTS.has(segment))) throw invalidParameter(`update: ${operator}: "${path}" is not a valid field path`)
  if (segments[0] === '_id' || segments[0] === 'id') throw invalidParameter(`update: performing an update on the path '${path}' would modify the immutable field '_id'`)
  if (nodeAt(scope.shown, segments) === undefined) throw invalidParameter(`update: ${operator}: field "${path}" is not a field of the model`)
  if (scope.readOnly.has(segments[0]!)) throw new DataApiError(422, 'SchemaValidationFailedWrite', `update: ${operator}: the caller's role may not set "${segments[0]}"`)
  return segments
}

function checkOperand(change: UpdateChange): void {
  const { operator, operand } = change
  const at = `update: ${operator} on "${change.path.join('.')}"`
  switch (operator) {
    case '$inc':
    case '$mul':
      if (typeof operand !== 'number') throw invalidParameter(`${at} takes a number`)
      return
    case '$pop':
      if (operand !== 1 && operand !== -1) throw invalidParameter(`${at} takes 1 (the last item) or -1 (the first)`)
      return
    case '$pullAll':
      if (!Array.isArray(operand)) throw invalidParameter(`${at} takes an array`)
      return
    case '$currentDate':
      if (operand !== true && !(isRecord(operand) && operand['$type'] === 'date' && Object.keys(operand).length === 1)) {
        throw invalidParameter(`${at} takes true or { "$type": "date" } (a timestamp is not supported: the models hold dates)`)
      }
      return
    case '$push':
    case '$addToSet':
      checkEach(operand, operator, at)
      return
    case '$rename':
      if (typeof operand !== 'string') throw invalidParameter(`${at} takes the new path, as a string`)
      return
    default:
  }
}

/** `$push` and `$addToSet` take a value, or `{ $each: [...] }` with their modifiers. */
function checkEach(operand: unknown, operator: string, at: string): void {
  if (!isRecord(operand) || !Object.keys(operand).some((key) => key.startsWith('$'))) return
  const allowed = operator === '$push' ? ['$each', '$position', '$slice', '$sort'] : ['$each']
  for (const key of Object.keys(operand)) if (!allowed.includes(key)) throw invalidParameter(`${at}: modifier ${key} is not supported (${allowed.join(', ')} are)`)
  if (!Array.isArray(operand['$each'])) throw invalidParameter(`${at}: $each takes an array`)
  for (const key of ['$position', '$slice'] as const) {
    if (operand[key] !== undefined && !Number.isInteger(operand[key])) throw invalidParameter(`${at}: ${key} takes an integer`)
  }
  const sort = operand['$sort']
  if (sort !== undefined && sort !== 1 && sort !== -1 && !(isRecord(sort) && Object.values(sort).every((direction) => direction === 1 || direction === -1))) {
    throw invalidParameter(`${at}: $sort takes 1, -1, or an object of fields and directions`)
  }
}

/** MongoDB's rule: no path may be changed twice in one update, nor a path and one below it. */
function refuseConflicts(changes: readonly UpdateChange[]): void {
  const paths = changes.flatMap((change) => [change.path, ...(change.operator === '$rename' ? [change.operand as string[]] : [])]).map((path) => path.join('.'))
  for (const [index, path] of paths.entries()) {
    for (const other of paths.slice(index + 1)) {
      if (other === path || other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) {
        throw invalidParameter(`update: updating the path '${other}' would create a conflict at '${path.length <= other.length ? path : other}'`)
      }
    }
  }
}
