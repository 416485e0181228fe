import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { didYouMean } from '../did-you-mean.js'
import { describeValue } from './relation-options.js'
import { PlainRouterOptionsSchema, RouterOptionSchemas } from './router-option-schemas.js'

const PLAIN_KEYS = Object.keys(RouterOptionSchemas)

let compiled: ValidateFunction | undefined
/**
 * Compiled on first use, once per process. allErrors off: registration names the first problem. The
 * schema is this package's own constant, so it is not checked against JSON Schema's meta-schema:
 * compiling that meta-schema was a tenth of a cold start's time to the first answer.
 */
function validator(): ValidateFunction {
  compiled ??= new Ajv({ strict: false, allErrors: false, verbose: true, validateSchema: false }).compile(PlainRouterOptionsSchema)
  return compiled
}

/**
 * The first plain option whose value does not match its declaration (router-option-schemas.ts), in
 * words (`'maxLimit' must be an integer >= 1, received 0`), or undefined when every one does. Keys left
 * undefined count as absent, as everywhere in the options.
 */
export function optionValueProblem(raw: Readonly<Record<string, unknown>>): string | undefined {
  const plain = Object.fromEntries(PLAIN_KEYS.filter((key) => raw[key] !== undefined).map((key) => [key, raw[key]]))
  const validate = validator()
  if (validate(plain)) return undefined
  return describeError(validate.errors![0]!)
}

function describeError(error: ErrorObject): string {
  const path = error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
  const params = error.params as Record<string, unknown>
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>
  if (error.keyword === 'additionalProperties') {
    const allowed = Object.keys((schema['properties'] ?? {}) as object)
    const key = String(params['additionalProperty'])
    return `${showPath(path)} has unknown key(s) '${key}': it takes ${allowed.join(', ')}${didYouMean(key, allowed)}`
  }
  if (error.keyword === 'required') {
    const missing = String(params['missingProperty'])
    const properties = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>
    return `${showPath([...path, missing])} must be ${expected(properties[missing] ?? {})}, received undefined`
  }
  return `${showPath(path)} must be ${expected(schema)}, received ${received(error.data, path[0])}`
}

/** The value, unless its option is a secret (`writeOnly`: etagKey): then only its length or its kind. */
function received(value: unknown, key: string | undefined): string {
  const declaration = RouterOptionSchemas[key as keyof typeof RouterOptionSchemas] as { writeOnly?: boolean } | undefined
  if (declaration?.writeOnly !== true) return describeValue(value)
  return typeof value === 'string' ? `one of ${value.length}` : `a value of type ${value === null ? 'null' : typeof value}`
}

/** `'maxLimit'`, `'defaultSort.direction'`, `'indexes[0]'.key.age`: quoted up to the first array position. */
function showPath(path: readonly string[]): string {
  const index = path.findIndex((segment) => /^\d+$/.test(segment))
  const dotted = (segments: readonly string[]) => segments.join('.')
  if (index === -1) return `'${dotted(path)}'`
  const head = `'${dotted(path.slice(0, index))}[${path[index]}]'`
  return path.length > index + 1 ? `${head}.${dotted(path.slice(index + 1))}` : head
}

/** What a declaration accepts, in words: its `expects`, else what its keywords say. */
function expected(schema: Readonly<Record<string, unknown>>): string {
  if (typeof schema['expects'] === 'string') return schema['expects']
  if (Array.isArray(schema['enum'])) return schema['enum'].map((value) => JSON.stringify(value).replaceAll('"', "'")).join(' or ')
  switch (schema['type']) {
    case 'integer':
      return schema['minimum'] === undefined ? 'an integer' : `an integer >= ${String(schema['minimum'])}`
    case 'string':
      return schema['minLength'] === undefined ? 'a string' : 'a non-empty string'
    case 'boolean':
      return 'a boolean'
    case 'array':
      return 'an array'
    case 'object':
      return schema['minProperties'] === undefined ? 'an object' : 'a non-empty object'
    default:
      return 'another value'
  }
}
