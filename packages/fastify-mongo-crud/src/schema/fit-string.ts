import { isObjectIdHex } from '../shapes/object-id.js'
import { DROP, describe, type Fit, type JsonSchema } from './fit.js'

/** The fit of `type: string`, with its `pattern`, `format: objectid` and `enum`. */
export function stringFit(schema: JsonSchema): Fit {
  const pattern = typeof schema['pattern'] === 'string' ? new RegExp(schema['pattern'], 'u') : undefined
  const isObjectId = schema['format'] === 'objectid'
  const allowed = Array.isArray(schema['enum']) ? new Set(schema['enum']) : undefined
  const matches = (text: string) =>
    (pattern === undefined || pattern.test(text)) && (!isObjectId || isObjectIdHex(text)) && (allowed === undefined || allowed.has(text))
  return (value, issues) => {
    if (typeof value === 'string' && matches(value)) return value
    // A number (an int64 or a decimal written by another tool) reads the same as text: converted, reported.
    if (typeof value === 'number' && Number.isFinite(value) && matches(String(value))) {
      issues.push({ path: '', reason: 'a number where a string is declared, served as text' })
      return String(value)
    }
    issues.push({ path: '', reason: typeof value === 'string' ? 'a string the declared format does not allow' : `${describe(value)} where a string is declared` })
    return DROP
  }
}
