import { evalExpr } from 'mingo/core'
import * as mingo from 'mingo/operators/expression'
import type { AnyObject, Options } from 'mingo/types'
import { ELEMENT_BYTES, memorySize, rememberSize } from '../bson/value-size.js'
import { isNonArrayObject } from '../document.js'
import { type ExpressionOperator, literal } from './bounded-array-operators.js'
import { BuildMemory, memoryLimitOf } from './expression-memory.js'

const $map = mingo.$map as ExpressionOperator
const $reduce = mingo.$reduce as ExpressionOperator

/**
 * mingo's `$map` and `$reduce`, whose result is made one element at a time by an expression: they
 * measure it as it grows (expression-memory.ts) and fail at the element that takes it past the
 * limit, before the next is made. MongoDB bounds both (`internalQueryMaxMapReduceExpressionBytes`).
 * The element's variables are bound with mingo's `$let`, as mingo's own operators bind them; a
 * malformed specification is handed to mingo's operator for its error.
 */
export const BOUNDED_ARRAY_LOOPS = {
  $map: boundedMap,
  $reduce: boundedReduce,
}

interface MapSpec {
  input?: unknown
  as?: unknown
  in?: unknown
}

function boundedMap(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!isSpec(expr, ['input', 'in'])) return $map(obj, expr, options)
  const spec = expr as MapSpec
  const input = evalExpr(obj, spec.input, options)
  if (!Array.isArray(input) || (spec.as != null && typeof spec.as !== 'string')) return $map(obj, { ...spec, input: literal(input) }, options)
  const name = (spec.as as string | undefined) || 'this'
  const memory = new BuildMemory('$map', memoryLimitOf(options))
  memory.add(input.length * ELEMENT_BYTES)
  const result = new Array<unknown>(input.length)
  for (let i = 0; i < input.length; i++) {
    result[i] = evalExpr(obj, { $let: { vars: { [name]: literal(input[i]) }, in: spec.in } }, options)
    memory.add(memorySize(result[i], memory.left))
  }
  return rememberSize(result, memory.bytes)
}

interface ReduceSpec {
  input?: unknown
  initialValue?: unknown
  in?: unknown
}

/** The value is measured after each step: what a step replaces is garbage, so only the current value counts. */
function boundedReduce(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!isSpec(expr, ['input', 'initialValue', 'in'])) return $reduce(obj, expr, options)
  const spec = expr as ReduceSpec
  const input = evalExpr(obj, spec.input, options)
  const initialValue = evalExpr(obj, spec.initialValue, options)
  if (!Array.isArray(input)) return $reduce(obj, { ...spec, input: literal(input), initialValue: literal(initialValue) }, options)
  const limit = memoryLimitOf(options)
  let value = initialValue
  for (const item of input) {
    // As in mingo's `$reduce`, the element is the expression's current object (`$$this`).
    value = evalExpr(item as AnyObject, { $let: { vars: { value: literal(value) }, in: spec.in } }, options)
    new BuildMemory('$reduce', limit).add(memorySize(value, limit))
  }
  return value
}

function isSpec(expr: unknown, fields: string[]): boolean {
  return isNonArrayObject(expr) && fields.every((field) => Object.hasOwn(expr, field))
}
