import type { ErrorObject } from 'ajv'

/** Keys that could pollute prototypes in any code that merges the body into an object. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 64

/**
 * Finds, in one walk of the body, keys a stored document must never have: `$`-prefixed or dotted keys
 * (MongoDB reads them as operators and paths), prototype-poisoning keys, and BSON type tags. Closed
 * models already reject unknown keys; this also covers open parts of a model (`Type.Record`, `Type.Any`).
 *
 * It also finds values a document cannot keep as sent, so a write never answers something other than
 * what was stored: numbers beyond a double (`JSON.parse` turns `1e400` into Infinity) and strings, keys
 * included, that are not well-formed Unicode (BSON stores a lone surrogate as U+FFFD).
 */
export function findForbiddenKey(value: unknown, path = '', depth = 0): ErrorObject | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : issue(path, 'finiteNumber', 'should be a finite number')
  if (typeof value === 'string') return isWellFormed(value) ? undefined : notWellFormed(path)
  if (typeof value !== 'object' || value === null) return undefined
  if (depth > MAX_DEPTH) return keyIssue(path, '(depth)', `nesting deeper than ${MAX_DEPTH} levels is not allowed`)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], `${path}/${i}`, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    if (!isWellFormed(key)) return notWellFormed(at)
    if (PROTOTYPE_KEYS.has(key)) return keyIssue(at, key, `key "${key}" is not allowed`)
    if (key.startsWith('$') || key.includes('.') || key === '_bsontype') {
      return keyIssue(at, key, `key "${key}" is not allowed: keys may not start with "$", contain "." or be "_bsontype"`)
    }
    const found = findForbiddenKey((value as Record<string, unknown>)[key], at, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/** `String.prototype.isWellFormed` (Node 20+; ES2024, newer than the lib this project compiles against). */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed()

const notWellFormed = (instancePath: string) =>
  issue(instancePath, 'wellFormedString', 'should be a well-formed Unicode string (it has a lone surrogate)')

function keyIssue(instancePath: string, key: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '#', keyword: 'forbiddenKey', params: { key }, message }
}

function issue(instancePath: string, keyword: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '#', keyword, params: {}, message }
}
