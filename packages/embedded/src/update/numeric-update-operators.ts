import { compareBson } from '../bson/bson-order.js'
import { type Document, isPlainObject } from '../document.js'
import { badValueError, conflictingUpdateError, pathNotViableError, typeMismatchError } from '../errors.js'
import { formatValue } from '../format-value.js'
import { compareTyped } from '../numbers/compare-numbers.js'
import { heldNumber, int, type TypedNumber, typedNumber } from '../numbers/numeric-type.js'
import { addTyped, LongOverflowError, multiplyTyped } from '../numbers/typed-arithmetic.js'

const NUMERIC_OPERATORS = ['$inc', '$mul', '$min', '$max'] as const
type NumericOperator = (typeof NUMERIC_OPERATORS)[number]

/**
 * `$inc`, `$mul`, `$min` and `$max`, applied by the engine to `doc` in place, with MongoDB's types
 * (mingo's add JS numbers and compare a Long among objects): int with int stays an int unless it
 * overflows (then a long), with a long it is a long, with a double a double, with a decimal a decimal;
 * an int64 overflow is refused (BadValue, "Failed to apply $inc operations ..."); a missing field
 * takes the argument (`$inc`, `$min`, `$max`) or a zero of its type (`$mul`). `$min` and `$max` keep
 * the winner with its own type, and change nothing on a tie. Paths are concrete (expand-positional.ts).
 * Answers the rest of the update, for mingo, and whether these changed anything. As the other
 * operators' paths are then mingo's to check, a conflict between a path of these and any other (the
 * same field, or one inside the other) is refused here, as mingo would.
 */
export function applyNumericOperators(doc: Document, update: Document): { rest: Document, changed: boolean } {
  if (!NUMERIC_OPERATORS.some((op) => Object.hasOwn(update, op))) return { rest: update, changed: false }
  refuseConflicts(update)
  const rest: Document = {}
  let changed = false
  for (const [op, fields] of Object.entries(update)) {
    if (!(NUMERIC_OPERATORS as readonly string[]).includes(op)) {
      rest[op] = fields
      continue
    }
    for (const [path, arg] of Object.entries(fields as Document)) {
      if (apply(doc, op as NumericOperator, path, arg)) changed = true
    }
  }
  return { rest, changed }
}

function apply(doc: Document, op: NumericOperator, path: string, arg: unknown): boolean {
  const segments = path.split('.')
  const parent = parentOf(doc, segments)
  const field = segments.at(-1)!
  const current = Array.isArray(parent) ? parent[Number(field)] : Object.hasOwn(parent, field) ? parent[field] : undefined
  const next = computed(doc, op, path, current, arg)
  if (next === undefined) return false
  setField(parent, field, next)
  return true
}

/** The new value of the field, or undefined when it keeps its value. */
function computed(doc: Document, op: NumericOperator, path: string, current: unknown, arg: unknown): unknown {
  if (op === '$min' || op === '$max') {
    if (current === undefined) return arg
    const order = compareBson(arg, current)
    return (op === '$min' ? order < 0 : order > 0) ? arg : undefined
  }
  const amount = typedNumber(arg)!
  if (current === undefined) return heldNumber(op === '$inc' ? amount : multiplyTyped(int(0), amount))
  const value = typedNumber(current)
  if (value === undefined) {
    throw typeMismatchError(`Cannot apply ${op} to a value of non-numeric type. {_id: ${formatValue(doc['_id'])}} has the field '${path}' of non-numeric type ${typeof current}`)
  }
  let result: TypedNumber
  try {
    result = op === '$inc' ? addTyped(value, amount, 'refuse') : multiplyTyped(value, amount, 'refuse')
  } catch (error) {
    if (!(error instanceof LongOverflowError)) throw error
    throw badValueError(`Failed to apply ${op} operations to current value ((NumberLong)${value.value}) for document {_id: ${formatValue(doc['_id'])}}`)
  }
  // The same type and value (an increment of 0) leaves the document as it was.
  return result.type === value.type && compareTyped(result, value) === 0 && result.type !== 'decimal' ? undefined : heldNumber(result)
}

/** The document or array holding the path's last field, created on the way as MongoDB creates it. */
function parentOf(doc: Document, segments: string[]): Document | unknown[] {
  let parent: Document | unknown[] = doc
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!
    let child: unknown = Array.isArray(parent) ? parent[Number(segment)] : Object.hasOwn(parent, segment) ? parent[segment] : undefined
    if (child === undefined) {
      if (Array.isArray(parent) && !/^\d+$/.test(segment)) throw notViable(segments, i, parent)
      child = {}
      setField(parent, segment, child)
    }
    if (!isPlainObject(child) && !Array.isArray(child)) throw notViable(segments, i + 1, child)
    parent = child
  }
  const last = segments.at(-1)!
  if (Array.isArray(parent) && !/^\d+$/.test(last)) throw notViable(segments, segments.length - 1, parent)
  return parent
}

function notViable(segments: string[], i: number, parent: unknown) {
  return pathNotViableError(`Cannot create field '${segments[i]}' in element {${segments.slice(0, i).join('.')}: ${formatValue(parent)}}`)
}

/** Sets a field (an array index pads the array with nulls, as MongoDB does); `__proto__` is an own field. */
function setField(parent: Document | unknown[], field: string, value: unknown): void {
  if (Array.isArray(parent)) {
    const index = Number(field)
    while (parent.length < index) parent.push(null)
    parent[index] = value
  } else {
    Object.defineProperty(parent, field, { value, writable: true, enumerable: true, configurable: true })
  }
}

/** Two paths of one update conflict when they are the same field or one is inside the other. */
function refuseConflicts(update: Document): void {
  const paths: string[] = []
  for (const [op, fields] of Object.entries(update)) {
    if (typeof fields !== 'object' || fields === null) continue
    for (const [path, arg] of Object.entries(fields as Document)) {
      paths.push(path)
      if (op === '$rename' && typeof arg === 'string') paths.push(arg)
    }
  }
  const seen = new Set<string>()
  for (const path of paths) {
    if (seen.has(path)) throw conflictingUpdateError(`Updating the path '${path}' would create a conflict at '${path}'`)
    seen.add(path)
  }
  for (const path of paths) {
    const segments = path.split('.')
    for (let i = 1; i < segments.length; i++) {
      const prefix = segments.slice(0, i).join('.')
      if (seen.has(prefix)) throw conflictingUpdateError(`Updating the path '${path}' would create a conflict at '${prefix}'`)
    }
  }
}
