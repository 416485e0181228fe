import { evalExpr } from 'mingo/core'
import * as mingo from 'mingo/operators/expression'
import type { AnyObject, Options } from 'mingo/types'
import { ELEMENT_BYTES, memorySize, rememberSize } from '../bson/value-size.js'
import { BuildMemory, checkBuild, memoryLimitOf } from './expression-memory.js'

/** An expression operator as mingo calls it; mingo's own are typed with their arguments, which these pass as literals. */
export type ExpressionOperator = (obj: AnyObject, expr: unknown, options: Options) => unknown

const $range = mingo.$range as ExpressionOperator
const $concatArrays = mingo.$concatArrays as ExpressionOperator
const $setUnion = mingo.$setUnion as ExpressionOperator
const $zip = mingo.$zip as ExpressionOperator

/**
 * mingo's expressions that build an array from arrays or bounds, measured before they build it
 * (expression-memory.ts): `$range` from its bounds, `$concatArrays` and `$setUnion` from their
 * inputs, `$zip` from its rows. Nesting one in another doubles the result at each level
 * (`{ $let: { vars: { x: <the level below> }, in: { $concatArrays: ['$$x', '$$x'] } } }`), so each
 * level checks its own result. Each evaluates its arguments once, then builds the result as mingo
 * does or hands the evaluated arguments to mingo's operator as literals: mingo's answers (null,
 * errors) stay its own, and no argument is evaluated twice.
 */
export const BOUNDED_ARRAY_OPERATORS = {
  $range: boundedRange,
  $concatArrays: boundedConcatArrays,
  $setUnion: boundedSetUnion,
  $zip: boundedZip,
}

/** A value mingo evaluates to itself, whatever it holds (a string starting with `$` included). */
export function literal(value: unknown): { $literal: unknown } {
  return { $literal: value }
}

/** Its length follows from start, end and step (mingo's default step, 1, when it is null or missing). */
function boundedRange(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!Array.isArray(expr)) return $range(obj, expr, options)
  const args = evalExpr(obj, expr, options) as unknown[]
  const [start, end] = args
  const step = args[2] ?? 1
  if (!Number.isInteger(start) || !Number.isInteger(end) || !Number.isInteger(step) || step === 0) return $range(obj, args.map(literal), options)
  const length = Math.max(0, Math.ceil(((end as number) - (start as number)) / (step as number)))
  const bytes = length * ELEMENT_BYTES
  checkBuild('$range', bytes, memoryLimitOf(options))
  return rememberSize($range(obj, args.map(literal), options), bytes)
}

/** Built here as mingo builds it, once measured; anything but arrays goes to mingo (null, or its error). */
function boundedConcatArrays(obj: AnyObject, expr: unknown, options: Options): unknown {
  const args = evalExpr(obj, expr, options)
  if (!Array.isArray(args) || !args.every(Array.isArray)) return $concatArrays(obj, literal(args), options)
  const memory = new BuildMemory('$concatArrays', memoryLimitOf(options))
  let length = 0
  for (const array of args as unknown[][]) {
    memory.add(memorySize(array, memory.left))
    length += array.length
  }
  const result = new Array<unknown>(length)
  let at = 0
  for (const array of args as unknown[][]) for (const item of array) result[at++] = item
  return rememberSize(result, memory.bytes)
}

/**
 * Measured as the concatenation of its inputs, an upper bound of their union; an input passed more
 * than once (a variable) is counted, and handed to mingo, once: the union is the same.
 */
function boundedSetUnion(obj: AnyObject, expr: unknown, options: Options): unknown {
  const args = evalExpr(obj, expr, options)
  if (!Array.isArray(expr)) return $setUnion(obj, literal(args), options)
  if (!Array.isArray(args) || !args.every(Array.isArray)) return $setUnion(obj, (args as unknown[]).map(literal), options)
  const inputs = [...new Set(args)]
  const memory = new BuildMemory('$setUnion', memoryLimitOf(options))
  for (const array of inputs) memory.add(memorySize(array, memory.left))
  return rememberSize($setUnion(obj, inputs.map(literal), options), memory.bytes)
}

interface ZipSpec {
  inputs?: unknown
  defaults?: unknown
  useLongestLength?: unknown
}

/** One new array per row, of one element per input: the elements are the inputs' own (or the defaults). */
function boundedZip(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (typeof expr !== 'object' || expr === null || !Object.hasOwn(expr, 'inputs')) return $zip(obj, expr, options)
  const spec = expr as ZipSpec
  const inputs = evalExpr(obj, spec.inputs, options)
  const defaults = evalExpr(obj, spec.defaults, options)
  const literals = { ...spec, inputs: literal(inputs), defaults: literal(defaults) }
  if (!Array.isArray(inputs) || !inputs.every(Array.isArray)) return $zip(obj, literals, options)
  const longest = spec.useLongestLength === true
  // mingo's count of rows: the longest input, or the shortest.
  let rows = 0
  for (const input of inputs) rows = longest ? Math.max(rows, input.length) : Math.min(rows || input.length, input.length)
  const memory = new BuildMemory('$zip', memoryLimitOf(options))
  memory.add(rows * ELEMENT_BYTES * (1 + inputs.length))
  for (const input of inputs) memory.add(memorySize(input, memory.left))
  if (longest && Array.isArray(defaults)) memory.add(rows * memorySize(defaults, memory.left))
  return rememberSize($zip(obj, literals, options), memory.bytes)
}
