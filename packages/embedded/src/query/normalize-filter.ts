import { type Document, isPlainObject } from '../document.js'
import { badValueError } from '../errors.js'
import { regexOptionsOf } from '../operators/regex-operators.js'

/**
 * Rewrites the few filter shapes where mingo's answer differs from MongoDB's into equivalent
 * shapes mingo gets right, before the filter is compiled:
 * - `$gte: null` / `$lte: null` match null *and missing* on the server (mingo: null only);
 *   both mean `$eq: null`.
 * - `$regex` (a string or a regex value, with its `$options`) becomes `$linearRegex`, matched with
 *   RE2 in linear time (regex-operators.ts): mingo would first build a JavaScript RegExp from it,
 *   which refuses RE2 syntax such as `(?i)` and has no `x` option. Bare regex values (`{ a: /x/i }`,
 *   in `$in`, `$nin`, `$all`, `$not`) keep their shape: the replaced mingo operators match them with
 *   RE2 too. `$linearRegex` is the engine's own: a client that sends it gets "unknown operator".
 * - `$type` also matches arrays holding an element of that type on the server; at field level it
 *   becomes `$or` of the plain test and an `$elemMatch`. Inside `$not` it is refused.
 */
export function normalizeFilter(filter: Document): Document {
  const out: Document = {}
  const extra: Document[] = []
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      out[key] = value.map((part) => (isPlainObject(part) ? normalizeFilter(part) : part))
    } else if (!key.startsWith('$') && isOperatorCondition(value)) {
      const { $type, ...rest } = normalizeOperators(value, false)
      if ($type === undefined) out[key] = rest
      else {
        if (Object.keys(rest).length > 0) out[key] = rest
        extra.push({ $or: [{ [key]: { $type } }, { [key]: { $elemMatch: { $type } } }] })
      }
    } else {
      out[key] = value
    }
  }
  if (extra.length === 0) return out
  return Object.keys(out).length === 0 && extra.length === 1 ? extra[0]! : { $and: [out, ...extra] }
}

function normalizeOperators(conditions: Document, negated: boolean): Document {
  const out: Document = {}
  for (const [op, arg] of Object.entries(conditions)) {
    if ((op === '$gte' || op === '$lte') && arg === null) {
      if (Object.hasOwn(conditions, '$eq') && conditions['$eq'] !== null) {
        throw badValueError(`${op}: null together with $eq is not supported by the embedded engine; use $and`)
      }
      out['$eq'] = null
    } else if (op === '$not' && isPlainObject(arg)) {
      out[op] = normalizeOperators(arg, true)
    } else if (op === '$elemMatch' && isPlainObject(arg)) {
      out[op] = isOperatorCondition(arg) ? normalizeOperators(arg, false) : normalizeFilter(arg)
    } else if (op === '$type' && negated) {
      throw badValueError('$type inside $not is not supported by the embedded engine')
    } else if (op === '$linearRegex') {
      throw badValueError(`unknown operator: ${op}`)
    } else if (op === '$regex') {
      out['$linearRegex'] = linearRegex(arg, conditions['$options'])
    } else if (op === '$options') {
      if (!Object.hasOwn(conditions, '$regex')) throw badValueError('$options needs a $regex')
    } else {
      out[op] = arg
    }
  }
  return out
}

/** The operand of `$linearRegex` for `$regex: pattern` and `$options: options`, checked as the server does. */
function linearRegex(pattern: unknown, options: unknown): { pattern: string, options: string } {
  if (options !== undefined && typeof options !== 'string') throw badValueError('$options has to be a string')
  if (pattern instanceof RegExp) {
    if (options !== undefined && options !== '' && pattern.flags !== '') {
      throw badValueError('options set in both $regex and $options')
    }
    return { pattern: pattern.source, options: options || regexOptionsOf(pattern.flags) }
  }
  if (typeof pattern !== 'string') throw badValueError('$regex has to be a string')
  return { pattern, options: options ?? '' }
}

/** A field's condition made of operators only (`{ $gt: 1, $lt: 5 }`): a non-empty plain object whose every key starts with `$`. */
function isOperatorCondition(value: unknown): value is Document {
  return isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'))
}
