import type { ErrorObject } from 'ajv'

/** Keys that could pollute prototypes in any code that merges the body into an object. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 64

/**
 * Finds keys a stored document must never have: `$`-prefixed or dotted keys (MongoDB reads them as
 * operators and paths), prototype-poisoning keys, and BSON type tags. Closed models already reject
 * unknown keys; this also covers open parts of a model (`Type.Record`, `Type.Any`).
 */
export function findForbiddenKey(value: unknown, path = '', depth = 0): ErrorObject | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if (depth > MAX_DEPTH) return issue(path, '(depth)', `nesting deeper than ${MAX_DEPTH} levels is not allowed`)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], `${path}/${i}`, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    if (PROTOTYPE_KEYS.has(key)) return issue(at, key, `key "${key}" is not allowed`)
    if (key.startsWith('$') || key.includes('.') || key === '_bsontype') {
      return issue(at, key, `key "${key}" is not allowed: keys may not start with "$", contain "." or be "_bsontype"`)
    }
    const found = findForbiddenKey((value as Record<string, unknown>)[key], at, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

function issue(instancePath: string, key: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '#', keyword: 'forbiddenKey', params: { key }, message }
}
