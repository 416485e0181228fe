import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { TSchema } from 'typebox'
import { OBJECT_ID_HEX } from '../store/object-id.js'
import { withoutRequired } from './without-required.js'

/**
 * Fits a stored document to an output schema before it is serialized. The serializer
 * (fast-json-stringify) trusts its input: it writes `"[object Object]"` for an object where a string is
 * declared, `true` for any value where a boolean is, `{}` for a string where an object is, and throws
 * (a 500) on a missing required field. A document written by another tool, an older model or a
 * non-finite number would be served wrong or not at all. The fit keeps what fits, converts what converts
 * losslessly (a number where a string is declared), and leaves the rest out, reporting each field.
 *
 * A document that fits is returned as is (no copy): the check costs one `typeof` per declared field.
 */
export type Fit = (value: unknown, issues: FitIssue[]) => unknown

/** One field that was left out or converted: its dotted path (relative to the fitted value) and why. */
export interface FitIssue {
  path: string
  reason: string
}

/** What a fit returns for a value that is left out. */
export const DROP: unique symbol = Symbol('drop')

const OBJECT_ID = OBJECT_ID_HEX
type JsonSchema = Record<string, unknown>

/** Prefixes the paths of the issues a child value reported since `from` (paths are built only when something is wrong). */
function under(issues: FitIssue[], from: number, key: string | number): void {
  for (let i = from; i < issues.length; i++) {
    const issue = issues[i]!
    issue.path = issue.path === '' ? String(key) : `${key}.${issue.path}`
  }
}
const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`)
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Compiles fits for schemas that may `$ref` the named models in `models`. `anyOf` branches are chosen
 * the way the serializer chooses them (Ajv, without `required`), so a fitted value always serializes.
 */
export function createFitCompiler(models: readonly TSchema[]): (schema: TSchema) => Fit {
  const refs = new Map<string, JsonSchema>()
  for (const model of models) {
    const id = (model as { $id?: string }).$id
    if (id !== undefined) refs.set(id, model as JsonSchema)
  }
  let ajv: Ajv | undefined
  const compiled = new WeakMap<object, Fit>()

  function validator(schema: JsonSchema): ValidateFunction {
    if (ajv === undefined) {
      ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true })
      addFormats.default(ajv)
      ajv.addFormat('objectid', OBJECT_ID)
      for (const [id, model] of refs) if (ajv.getSchema(id) === undefined) ajv.addSchema(withoutRequired(model) as object)
    }
    // A branch that is itself a named model (nested in another) is already known by its id.
    const id = schema['$id']
    const known = typeof id === 'string' ? ajv.getSchema(id) : undefined
    return known ?? ajv.compile(withoutRequired(schema) as object)
  }

  function compile(schema: JsonSchema): Fit {
    const known = compiled.get(schema)
    if (known !== undefined) return known
    // Recursive models: the entry is in place before its children compile.
    let fit: Fit = () => DROP
    const lazy: Fit = (value, issues) => fit(value, issues)
    compiled.set(schema, lazy)
    fit = build(schema)
    // Later users call the fit directly; only recursive references go through `lazy`.
    compiled.set(schema, fit)
    return fit
  }

  function build(schema: JsonSchema): Fit {
    const ref = schema['$ref']
    if (typeof ref === 'string') {
      const target = refs.get(ref.replace(/#$/, ''))
      return target === undefined ? keep : compile(target)
    }
    const variants = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined
    if (Array.isArray(variants)) return anyOf(variants)
    const declared = schema['type']
    const types = Array.isArray(declared)
      ? (declared as string[])
      : typeof declared === 'string'
        ? [declared]
        : schema['properties'] !== undefined
          ? ['object']
          : schema['items'] !== undefined
            ? ['array']
            : []
    if (types.length === 0) return keep
    const fits = types.filter((type) => type !== 'null').map((type) => byType(type, schema))
    const nullable = types.includes('null')
    return (value, issues) => {
      if (value === null) {
        if (nullable) return null
        issues.push({ path: '', reason: `null where ${types.join(' or ')} is declared` })
        return DROP
      }
      if (fits.length === 1) return fits[0]!(value, issues)
      for (const fit of fits) {
        const tried: FitIssue[] = []
        const result = fit(value, tried)
        if (result !== DROP) {
          issues.push(...tried)
          return result
        }
      }
      issues.push({ path: '', reason: `${describe(value)} where ${types.join(' or ')} is declared` })
      return DROP
    }
  }

  function anyOf(variants: JsonSchema[]): Fit {
    const branches = variants.map((variant) => ({ fit: compile(variant), check: undefined as ValidateFunction | undefined, schema: variant }))
    const checks = (index: number, value: unknown) => {
      const branch = branches[index]!
      branch.check ??= validator(branch.schema)
      return branch.check(value)
    }
    return (value, issues) => {
      for (let i = 0; i < branches.length; i++) if (checks(i, value)) return value
      for (let i = 0; i < branches.length; i++) {
        const tried: FitIssue[] = []
        const result = branches[i]!.fit(value, tried)
        if (result !== DROP && checks(i, result)) {
          issues.push(...tried)
          return result
        }
      }
      issues.push({ path: '', reason: `${describe(value)} that matches none of the declared types` })
      return DROP
    }
  }

  function byType(type: string, schema: JsonSchema): Fit {
    switch (type) {
      case 'string':
        return stringFit(schema)
      case 'number':
        return (value, issues) => {
          if (typeof value === 'number' && Number.isFinite(value)) return value
          issues.push({ path: '', reason: typeof value === 'number' ? `non-finite number ${value}` : `${describe(value)} where a number is declared` })
          return DROP
        }
      case 'integer':
        return (value, issues) => {
          if (Number.isInteger(value)) return value
          issues.push({ path: '', reason: `${typeof value === 'number' ? `the number ${value}` : describe(value)} where an integer is declared` })
          return DROP
        }
      case 'boolean':
        return (value, issues) => {
          if (typeof value === 'boolean') return value
          issues.push({ path: '', reason: `${describe(value)} where a boolean is declared` })
          return DROP
        }
      case 'array':
        return arrayFit(schema)
      case 'object':
        return objectFit(schema)
      default:
        return keep
    }
  }

  function stringFit(schema: JsonSchema): Fit {
    const pattern = typeof schema['pattern'] === 'string' ? new RegExp(schema['pattern'], 'u') : undefined
    const isObjectId = schema['format'] === 'objectid'
    const allowed = Array.isArray(schema['enum']) ? new Set(schema['enum']) : undefined
    const matches = (text: string) =>
      (pattern === undefined || pattern.test(text)) && (!isObjectId || OBJECT_ID.test(text)) && (allowed === undefined || allowed.has(text))
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

  function arrayFit(schema: JsonSchema): Fit {
    const items = isPlainObject(schema['items']) ? compile(schema['items']) : keep
    return (value, issues) => {
      if (!Array.isArray(value)) {
        issues.push({ path: '', reason: `${describe(value)} where an array is declared` })
        return DROP
      }
      let out: unknown[] | undefined
      for (let i = 0; i < value.length; i++) {
        const item = value[i]
        const before = issues.length
        const result = items(item, issues)
        if (issues.length > before) under(issues, before, i)
        if (result === item && out === undefined) continue
        out ??= value.slice(0, i)
        if (result !== DROP) out.push(result)
      }
      return out ?? value
    }
  }

  function objectFit(schema: JsonSchema): Fit {
    const entries = Object.entries(isPlainObject(schema['properties']) ? schema['properties'] : {})
    const keys = entries.map(([key]) => key)
    const fits = entries.map(([, sub]) => compile(sub as JsonSchema))
    const declared = new Set(keys)
    const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : [])
    const extra = schema['additionalProperties']
    const patterns = Object.entries(isPlainObject(schema['patternProperties']) ? schema['patternProperties'] : {}).map(
      ([source, sub]) => [new RegExp(source, 'u'), compile(sub as JsonSchema)] as const
    )
    const extraFit = isPlainObject(extra) ? compile(extra) : extra === true ? keep : undefined
    const open = extraFit !== undefined || patterns.length > 0
    return (value, issues) => {
      if (!isPlainObject(value)) {
        issues.push({ path: '', reason: `${describe(value)} where an object is declared` })
        return DROP
      }
      let out: Record<string, unknown> | undefined
      const set = (key: string, result: unknown) => {
        out ??= { ...value }
        if (result === DROP) delete out[key]
        else out[key] = result
      }
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        const sub = value[key]
        if (sub === undefined) {
          if (required.has(key)) issues.push({ path: key, reason: 'a required field is missing' })
          continue
        }
        const before = issues.length
        const result = fits[i]!(sub, issues)
        if (issues.length > before) under(issues, before, key)
        if (result !== sub) set(key, result)
      }
      if (open) {
        for (const key of Object.keys(value)) {
          if (declared.has(key)) continue
          const fit = patterns.find(([pattern]) => pattern.test(key))?.[1] ?? extraFit
          if (fit === undefined) continue
          const sub = value[key]
          const before = issues.length
          const result = fit(sub, issues)
          if (issues.length > before) under(issues, before, key)
          if (result !== sub) set(key, result)
        }
      }
      return out ?? value
    }
  }

  return (schema) => compile(schema as JsonSchema)
}

const keep: Fit = (value) => value
