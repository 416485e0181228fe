import type { RE2JS } from '@fastify-mongo-crud/linear-regex'
import { compileRegex, RegexRefusal } from '@fastify-mongo-crud/linear-regex'
import { evalExpr } from 'mingo/core'
import { $all, $in, $nin, $regex } from 'mingo/operators/query'
import type { Options } from 'mingo/types'
import { badValueError, invalidExpressionRegexError, invalidRegexError, invalidRegexOptionError } from '../errors.js'

/**
 * The mingo operators that evaluate a client's regular expression, replaced so that every one of them
 * matches through RE2 (compile-regex.ts), in linear time: mingo would run JavaScript's backtracking
 * engine, which `a*a*a*a*!` with `i` freezes for seconds and six `a*` for half an hour.
 *
 * - `$regex`, and `$in` / `$nin` / `$all` holding regexes (BSON regex values, `$not: /x/`): mingo's own
 *   operators, handed regexes whose `exec` / `test` run RE2. Everything else (paths, arrays, equality
 *   of regex values) stays mingo's.
 * - `$linearRegex`: what normalize-filter.ts rewrites a `$regex` string into, so that mingo never
 *   builds a JavaScript RegExp from it (which would refuse RE2 syntax such as `(?i)` and ignore `x`).
 * - `$regexMatch`, `$regexFind`, `$regexFindAll`: the aggregation expressions, reimplemented on RE2.
 */
export const LINEAR_REGEX_QUERY_OPERATORS = {
  $regex: (selector: string, value: unknown, options: Options) => $regex(selector, linearize(value), options),
  $in: (selector: string, value: unknown, options: Options) => $in(selector, linearizeAll(value), options),
  $nin: (selector: string, value: unknown, options: Options) => $nin(selector, linearizeAll(value), options),
  $all: (selector: string, value: unknown, options: Options) => $all(selector, linearizeAll(value), options),
  $linearRegex: (selector: string, value: { pattern: string, options: string }, options: Options) =>
    $regex(selector, new LinearRegExp(compileQueryRegex(value.pattern, value.options)), options),
}

export const LINEAR_REGEX_EXPRESSION_OPERATORS = {
  $regexMatch: (obj: object, expr: unknown, options: Options) => regexSearch('$regexMatch', obj, expr, options, false).length > 0,
  $regexFind: (obj: object, expr: unknown, options: Options) => regexSearch('$regexFind', obj, expr, options, false)[0] ?? null,
  $regexFindAll: (obj: object, expr: unknown, options: Options) => regexSearch('$regexFindAll', obj, expr, options, true),
}

/**
 * A RegExp (so mingo's `instanceof RegExp` checks still see one, and a regex value still equals a
 * stored regex with the same source and flags) whose matching runs RE2. Built from a client regex
 * that JavaScript already parsed, or, for `$linearRegex`, from RE2 alone.
 */
class LinearRegExp extends RegExp {
  readonly #re2: RE2JS

  constructor(re2: RE2JS, source?: RegExp) {
    // Without a JavaScript twin, the RegExp part is never used for matching: an empty pattern.
    super(source?.source ?? '(?:)', source?.flags ?? '')
    this.#re2 = re2
  }

  override test(input: string): boolean {
    return this.#re2.test(input)
  }

  override exec(input: string): RegExpExecArray | null {
    const matcher = this.#re2.matcher(input)
    if (!matcher.find()) return null
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, i) => matcher.group(i) ?? undefined)
    return Object.assign(groups as string[], { index: matcher.start(), input, groups: undefined }) as unknown as RegExpExecArray
  }
}

function linearize(value: unknown): unknown {
  if (!(value instanceof RegExp) || value instanceof LinearRegExp) return value
  return new LinearRegExp(compileQueryRegex(value.source, regexOptionsOf(value.flags)), value)
}

function linearizeAll(value: unknown): unknown {
  return Array.isArray(value) ? value.map(linearize) : value
}

/**
 * MongoDB options for a JavaScript RegExp's flags. The driver's BSON library writes JavaScript's `g`
 * as BSON option `s` and reads `s` back as `g`, so `g` here is a client's "dot matches newline"; the
 * other JavaScript-only flags (`u`, `y`, `d`, `v`) have no MongoDB meaning.
 */
export function regexOptionsOf(flags: string): string {
  let options = ''
  for (const flag of flags) {
    if (flag === 'i' || flag === 'm') options += flag
    else if ((flag === 's' || flag === 'g') && !options.includes('s')) options += 's'
  }
  return options
}

function compileQueryRegex(pattern: string, options: string): RE2JS {
  try {
    return compileRegex(pattern, options)
  } catch (error) {
    if (!(error instanceof RegexRefusal)) throw error
    throw error.kind === 'options' ? invalidRegexOptionError(error.reason) : invalidRegexError(error.reason)
  }
}

interface RegexSearchArgs {
  input?: unknown
  regex?: unknown
  options?: unknown
}

interface RegexFindResult {
  match: string
  idx: number
  captures: Array<string | null>
}

/** `$regexFind*`'s matches of `regex` in `input`, in mingo's result shape; all of them when `global`. */
function regexSearch(op: string, obj: object, expr: unknown, options: Options, global: boolean): RegexFindResult[] {
  const args = evalExpr(obj, expr, options) as RegexSearchArgs
  if (typeof args?.input !== 'string' || args.regex === null || args.regex === undefined) return []
  if (typeof args.regex !== 'string' && !(args.regex instanceof RegExp)) throw badValueError(`${op} needs 'regex' to be of type string or regex`)
  let re2: RE2JS
  try {
    const flags = typeof args.options === 'string' ? args.options : ''
    re2 = typeof args.regex === 'string' ? compileRegex(args.regex, flags) : compileRegex(args.regex.source, flags || regexOptionsOf(args.regex.flags))
  } catch (error) {
    if (!(error instanceof RegexRefusal)) throw error
    throw invalidExpressionRegexError(op, error.reason)
  }
  const matcher = re2.matcher(args.input)
  const results: RegexFindResult[] = []
  while (matcher.find()) {
    const captures: Array<string | null> = []
    for (let i = 1; i <= matcher.groupCount(); i++) captures.push(matcher.group(i))
    results.push({ match: matcher.group(0) ?? '', idx: matcher.start(), captures })
    if (!global) break
  }
  return results
}
