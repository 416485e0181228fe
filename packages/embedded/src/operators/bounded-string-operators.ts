import { evalExpr } from 'mingo/core'
import * as mingo from 'mingo/operators/expression'
import type { AnyObject, Options } from 'mingo/types'
import { ELEMENT_BYTES } from '../bson/value-size.js'
import { isNonArrayObject } from '../document.js'
import { type ExpressionOperator, literal } from './bounded-array-operators.js'
import { checkBuild, memoryLimitOf, stringLimitOf } from './expression-memory.js'

const $concat = mingo.$concat as ExpressionOperator
const $replaceAll = mingo.$replaceAll as ExpressionOperator
const $replaceOne = mingo.$replaceOne as ExpressionOperator
const $split = mingo.$split as ExpressionOperator
const $strLenCP = mingo.$strLenCP as ExpressionOperator
const $strLenBytes = mingo.$strLenBytes as ExpressionOperator
const $substrCP = mingo.$substrCP as ExpressionOperator

/**
 * mingo's string expressions that build a larger string or an array of strings, measured before
 * they build it (expression-memory.ts): `$concat` (nested, it doubles at each level), `$replaceAll`,
 * `$replaceOne` and `$split`. A string is limited to 16 MiB, the largest document that could hold
 * it. `$strLenCP`, `$strLenBytes` and `$substrCP` are mingo's answers computed without copying the
 * string into an array of characters (mingo spreads it: 16 bytes and more per character).
 */
export const BOUNDED_STRING_OPERATORS = {
  $concat: boundedConcat,
  $replaceAll: boundedReplaceAll,
  $replaceOne: boundedReplaceOne,
  $split: boundedSplit,
  $strLenCP: strLenCP,
  $strLenBytes: strLenBytes,
  $substrCP: substrCP,
}

/** mingo's answers: null when an argument is null or missing, its error when one is not a string. */
function boundedConcat(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!Array.isArray(expr)) return $concat(obj, expr, options)
  const args = evalExpr(obj, expr, options) as unknown[]
  let length = 0
  for (const arg of args) {
    if (arg === null || arg === undefined) return null
    length += typeof arg === 'string' ? arg.length : 0
  }
  if (!args.every((arg) => typeof arg === 'string')) return $concat(obj, args.map(literal), options)
  checkBuild('$concat', length, stringLimitOf(options))
  return args.join('')
}

interface ReplaceArgs {
  input?: unknown
  find?: unknown
  replacement?: unknown
}

/** mingo splits on `find` and joins with `replacement`: both the pieces and the result are measured. */
function boundedReplaceAll(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!isNonArrayObject(expr)) return $replaceAll(obj, expr, options)
  const args = evalExpr(obj, expr, options) as ReplaceArgs
  const { input, find, replacement } = args
  if (typeof input === 'string' && typeof find === 'string' && typeof replacement === 'string') {
    const pieces = piecesOf(input, find)
    checkBuild('$replaceAll', pieces * ELEMENT_BYTES + input.length, memoryLimitOf(options))
    checkBuild('$replaceAll', input.length + Math.max(0, pieces - 1) * (replacement.length - find.length), stringLimitOf(options))
  }
  return $replaceAll(obj, { input: literal(input), find: literal(find), replacement: literal(replacement) }, options)
}

function boundedReplaceOne(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!isNonArrayObject(expr)) return $replaceOne(obj, expr, options)
  const { input, find, replacement } = evalExpr(obj, expr, options) as ReplaceArgs
  if (typeof input === 'string' && typeof replacement === 'string') checkBuild('$replaceOne', input.length + replacement.length, stringLimitOf(options))
  return $replaceOne(obj, { input: literal(input), find: literal(find), replacement: literal(replacement) }, options)
}

function boundedSplit(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!Array.isArray(expr) || expr.length !== 2) return $split(obj, expr, options)
  const [input, separator] = evalExpr(obj, expr, options) as unknown[]
  if (typeof input === 'string' && typeof separator === 'string') {
    checkBuild('$split', piecesOf(input, separator) * ELEMENT_BYTES + input.length, memoryLimitOf(options))
  }
  return $split(obj, [literal(input), literal(separator)], options)
}

/** How many strings JavaScript's `input.split(separator)` makes (an empty separator: one per UTF-16 unit). */
function piecesOf(input: string, separator: string): number {
  if (separator === '') return input.length
  let pieces = 1
  for (let at = input.indexOf(separator); at !== -1; at = input.indexOf(separator, at + separator.length)) pieces++
  return pieces
}

/** Code points, counted as mingo's `[...s].length` counts them (a lone surrogate is one). */
function strLenCP(obj: AnyObject, expr: unknown, options: Options): unknown {
  const s = evalExpr(obj, expr, options)
  if (typeof s !== 'string') return $strLenCP(obj, literal(s), options)
  let count = 0
  for (let i = 0; i < s.length; i = nextCodePoint(s, i)) count++
  return count
}

/** UTF-8 bytes; a lone surrogate counts as the 3 bytes of the replacement character BSON would store. */
function strLenBytes(obj: AnyObject, expr: unknown, options: Options): unknown {
  const s = evalExpr(obj, expr, options)
  if (typeof s !== 'string') return $strLenBytes(obj, literal(s), options)
  return Buffer.byteLength(s, 'utf8')
}

/** mingo's answer, `[...s].slice(index, index + count).join('')`, found by walking the code points. */
function substrCP(obj: AnyObject, expr: unknown, options: Options): unknown {
  if (!Array.isArray(expr) || expr.length !== 3) return $substrCP(obj, expr, options)
  const args = evalExpr(obj, expr, options) as unknown[]
  const [s, index, count] = args
  if (typeof s !== 'string' || !Number.isInteger(index) || !Number.isInteger(count) || (index as number) < 0) return $substrCP(obj, args.map(literal), options)
  const start = skipCodePoints(s, 0, index as number)
  return s.slice(start, (count as number) < 0 ? s.length : skipCodePoints(s, start, count as number))
}

/** The UTF-16 offset `count` code points after `from` (the string's length at most). */
function skipCodePoints(s: string, from: number, count: number): number {
  let at = from
  for (let n = 0; n < count && at < s.length; n++) at = nextCodePoint(s, at)
  return at
}

function nextCodePoint(s: string, at: number): number {
  const unit = s.charCodeAt(at)
  const pair = unit >= 0xd800 && unit <= 0xdbff && at + 1 < s.length && s.charCodeAt(at + 1) >= 0xdc00 && s.charCodeAt(at + 1) <= 0xdfff
  return at + (pair ? 2 : 1)
}
