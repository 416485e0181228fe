import { checkFieldPath } from '../check-field-path.js'
import type { Document } from '../document.js'
import { badValueError, failedToParseError, pathNotViableError, typeMismatchError } from '../errors.js'
import { formatValue } from '../format-value.js'

/**
 * Type checks the server performs before applying an update, and mingo skips (mingo silently
 * ignores `$inc` on a string or `$push` onto a number). Without them an invalid update would
 * report success and change nothing. Checks stop at the first positional segment (`$`, `$[]`,
 * `$[id]`); past it, mingo's behaviour applies.
 */
export function checkUpdate(doc: Document, update: Document, arrayFilters: Document[] | undefined): void {
  const used = new Set<string>()
  for (const [op, fields] of Object.entries(update)) {
    if (typeof fields !== 'object' || fields === null) {
      throw failedToParseError(`Modifiers operate on fields but we found type ${typeof fields} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatValue(fields)}}`)
    }
    for (const [path, arg] of Object.entries(fields)) {
      checkFieldPath(path)
      if (op === '$rename' && typeof arg === 'string') checkFieldPath(arg)
      for (const id of identifiersIn(path)) used.add(id)
      checkPath(doc, op, path, arg)
    }
  }
  checkArrayFilters(used, arrayFilters ?? [])
}

const CREATES = new Set(['$set', '$inc', '$mul', '$push', '$addToSet', '$min', '$max', '$currentDate'])
const NUMERIC = new Set(['$inc', '$mul'])
const ARRAY = new Set(['$push', '$addToSet', '$pull', '$pullAll', '$pop'])

function checkPath(doc: Document, op: string, path: string, arg: unknown): void {
  if (NUMERIC.has(op) && !isNumeric(arg)) {
    throw typeMismatchError(`Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${formatValue(arg)}}`)
  }
  const segments = path.split('.')
  let parent: unknown = doc
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (isPositional(segment)) {
      if (!Array.isArray(parent)) {
        const prefix = segments.slice(0, i).join('.')
        throw badValueError(parent === undefined
          ? `The path '${prefix}' must exist in the document in order to apply array updates.`
          : `Cannot apply array updates to non-array element ${prefix}: ${formatValue(parent)}`)
      }
      return
    }
    const value = childOf(parent, segment)
    if (value === NOT_VIABLE) {
      if (!CREATES.has(op)) return
      const prefix = segments.slice(0, i).join('.')
      throw pathNotViableError(`Cannot create field '${segment}' in element {${prefix}: ${formatValue(parent)}}`)
    }
    if (i === segments.length - 1) {
      checkTarget(doc, op, path, value)
      return
    }
    if (value === undefined && !segments.slice(i + 1).some(isPositional)) return
    parent = value
  }
}

const NOT_VIABLE = Symbol('not viable')

/** The child at `segment`, undefined when absent, NOT_VIABLE when `parent` cannot have one. */
function childOf(parent: unknown, segment: string): unknown {
  if (Array.isArray(parent)) return /^\d+$/.test(segment) ? parent[Number(segment)] : NOT_VIABLE
  if (typeof parent === 'object' && parent !== null && !('_bsontype' in parent) && !(parent instanceof Date)) {
    return (parent as Record<string, unknown>)[segment]
  }
  return NOT_VIABLE
}

function checkTarget(doc: Document, op: string, path: string, value: unknown): void {
  if (value === undefined) return
  if (NUMERIC.has(op) && !isNumeric(value)) {
    throw typeMismatchError(`Cannot apply ${op} to a value of non-numeric type. {_id: ${formatValue(doc['_id'])}} has the field '${path}' of non-numeric type ${typeName(value)}`)
  }
  if (ARRAY.has(op) && !Array.isArray(value)) {
    throw badValueError(`The field '${path}' must be an array but is of type ${typeName(value)} in document {_id: ${formatValue(doc['_id'])}}`)
  }
}

function checkArrayFilters(used: Set<string>, arrayFilters: Document[]): void {
  const declared = new Set<string>()
  for (const filter of arrayFilters) {
    const first = Object.keys(filter)[0]
    if (first === undefined) throw failedToParseError('Cannot use an expression without a top-level field name in arrayFilters')
    declared.add(first.split('.')[0]!)
  }
  for (const id of used) {
    if (!declared.has(id)) throw badValueError(`No array filter found for identifier '${id}'`)
  }
  for (const id of declared) {
    if (!used.has(id)) throw failedToParseError(`The array filter for identifier '${id}' was not used in the update`)
  }
}

function isPositional(segment: string): boolean {
  return segment === '$' || (segment.startsWith('$[') && segment.endsWith(']'))
}

function identifiersIn(path: string): string[] {
  return path.split('.').flatMap((s) => (s.startsWith('$[') && s.length > 3 && s.endsWith(']') ? [s.slice(2, -1)] : []))
}

function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return true
  const bsonType = (value as { _bsontype?: unknown } | null)?._bsontype
  return bsonType === 'Long' || bsonType === 'Int32' || bsonType === 'Double' || bsonType === 'Decimal128'
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (value instanceof Date) return 'date'
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (typeof bsonType === 'string') return bsonType.toLowerCase()
  return typeof value === 'object' ? 'object' : typeof value
}
