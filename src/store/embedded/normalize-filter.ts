import type { Document } from '../driver-db.js'
import { badValueError } from './errors.js'

/**
 * Rewrites the few filter shapes where mingo's answer differs from MongoDB's into equivalent
 * shapes mingo gets right, before the filter is compiled:
 * - `$gte: null` / `$lte: null` match null *and missing* on the server (mingo: null only);
 *   both mean `$eq: null`.
 * - `$regex` with the `x` option (extended: whitespace and `#` comments ignored), which
 *   JavaScript regular expressions lack, is rewritten without it.
 * - `$type` also matches arrays holding an element of that type on the server; at field level it
 *   becomes `$or` of the plain test and an `$elemMatch`. Inside `$not` it is refused.
 */
export function normalizeFilter(filter: Document): Document {
  const out: Document = {}
  const extra: Document[] = []
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      out[key] = value.map((part) => (isPlainObject(part) ? normalizeFilter(part) : part))
    } else if (!key.startsWith('$') && isOperatorObject(value)) {
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
      out[op] = isOperatorObject(arg) ? normalizeOperators(arg, false) : normalizeFilter(arg)
    } else if (op === '$type' && negated) {
      throw badValueError('$type inside $not is not supported by the embedded engine')
    } else if (op === '$options' && typeof arg === 'string' && arg.includes('x')) {
      out['$regex'] = stripExtended(String(conditions['$regex'] ?? ''))
      out[op] = arg.replaceAll('x', '')
    } else if (!(op === '$regex' && Object.hasOwn(out, '$regex'))) {
      out[op] = arg
    }
  }
  return out
}

/** PCRE's extended mode: unescaped whitespace and `#` comments outside character classes go. */
function stripExtended(pattern: string): string {
  let out = ''
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '\\') {
      out += char + (pattern[i + 1] ?? '')
      i++
    } else if (inClass) {
      if (char === ']') inClass = false
      out += char
    } else if (char === '[') {
      inClass = true
      out += char
    } else if (char === '#') {
      while (i < pattern.length && pattern[i] !== '\n') i++
    } else if (!/\s/.test(char)) {
      out += char
    }
  }
  return out
}

function isPlainObject(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}

function isOperatorObject(value: unknown): value is Document {
  return isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'))
}
