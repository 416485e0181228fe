import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { closestName, didYouMean } from '../did-you-mean.js'
import type { ApiFileIssue } from './api-file-error.js'
import { apiFileSchema } from './api-file-schema.js'
import { escapePointer, type Located } from './parse-json-positions.js'

let compiled: ValidateFunction | undefined
/** The schema the package ships (a test keeps the shipped file equal to it), compiled once. */
function validator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile(apiFileSchema())
  return compiled
}

/**
 * Checks the parsed file against the format's JSON Schema; every error becomes an issue at the line of
 * the value it is about (an unknown key: at the key). `anyOf` alternatives are reported once, with the
 * schema's description of what is expected, not once per alternative. An unknown key that is a
 * misspelling of a required key the object lacks (`colection`) is one mistake: one issue, at the key.
 */
export function checkFileSchema(value: unknown, positions: ReadonlyMap<string, Located>): ApiFileIssue[] {
  const validate = validator()
  if (validate(value)) return []
  const errors = validate.errors ?? []
  // The errors of a failed anyOf's alternatives come right before the anyOf's own error, at its value
  // or below it: they are noise, the anyOf error says what was expected (its schema's description).
  const dropped = new Set<number>()
  errors.forEach((error, index) => {
    if (error.keyword !== 'anyOf') return
    const path = error.instancePath
    for (let j = index - 1; j >= 0 && (errors[j]!.instancePath === path || errors[j]!.instancePath.startsWith(`${path}/`)); j--) dropped.add(j)
  })
  const misspelt = misspeltRequiredKeys(errors)
  const issues: ApiFileIssue[] = []
  const seen = new Set<string>()
  errors.forEach((error, index) => {
    // propertyNames reports twice (the pattern, then "property name must be valid"): keep the first.
    if (dropped.has(index) || error.keyword === 'propertyNames') return
    if (error.keyword === 'required' && misspelt.has(`${error.instancePath}|${String(error.params['missingProperty'])}`)) return
    const issue = toIssue(error, positions)
    const key = `${issue.pointer}|${issue.message}`
    if (!seen.has(key)) {
      seen.add(key)
      issues.push(issue)
    }
  })
  return issues
}

/** `path|key` of each required key an object lacks whose misspelling is an unknown key of that object. */
function misspeltRequiredKeys(errors: readonly ErrorObject[]): Set<string> {
  const missing = new Set(errors.filter((error) => error.keyword === 'required').map((error) => `${error.instancePath}|${String(error.params['missingProperty'])}`))
  const misspelt = new Set<string>()
  for (const error of errors) {
    if (error.keyword !== 'additionalProperties') continue
    const closest = closestName(String(error.params['additionalProperty']), allowedKeys(error))
    const key = `${error.instancePath}|${closest}`
    if (closest !== undefined && missing.has(key)) misspelt.add(key)
  }
  return misspelt
}

const allowedKeys = (error: ErrorObject) => Object.keys((error.parentSchema?.['properties'] ?? {}) as object)

function toIssue(error: ErrorObject, positions: ReadonlyMap<string, Located>): ApiFileIssue {
  const params = error.params as Record<string, unknown>
  const at = (pointer: string, onKey = false) => {
    const located = positions.get(pointer)
    const position = (onKey ? located?.key : undefined) ?? located?.value ?? { line: 1, column: 1 }
    return { line: position.line, column: position.column, pointer }
  }
  const name = error.instancePath === '' ? 'the file' : `'${error.instancePath.split('/').at(-1)}'`
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params['additionalProperty'])
      const allowed = allowedKeys(error)
      // The keys allowed are listed only when none is close: the suggestion is what the reader needs.
      const suggestion = didYouMean(key, allowed)
      const hint = suggestion !== '' ? suggestion : allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : ''
      return { ...at(`${error.instancePath}/${escapePointer(key)}`, true), message: `unknown key '${key}' in ${name}${hint}` }
    }
    case 'required':
      return { ...at(error.instancePath), message: `${name} lacks the required key '${String(params['missingProperty'])}'` }
    case 'pattern':
      if (error.propertyName !== undefined) {
        return { ...at(`${error.instancePath}/${escapePointer(error.propertyName)}`, true), message: `'${error.propertyName}' is not a valid name here: it must match ${String(params['pattern'])}` }
      }
      return { ...at(error.instancePath), message: `${name} must match ${String(params['pattern'])}` }
    case 'enum': {
      const allowed = params['allowedValues'] as unknown[]
      const suggestion = typeof error.data === 'string' ? didYouMean(error.data, allowed.filter((value) => typeof value === 'string')) : ''
      return { ...at(error.instancePath), message: `${name} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${suggestion}` }
    }
    case 'const':
      return { ...at(error.instancePath), message: `${name} must be ${JSON.stringify(params['allowedValue'])}` }
    case 'anyOf':
      return { ...at(error.instancePath), message: `${name} is not valid: expected ${String(error.parentSchema?.['description'] ?? 'another value')}` }
    default:
      return { ...at(error.instancePath), message: `${name} ${error.message ?? 'is invalid'}` }
  }
}
