import { isRecord } from '../is-record.js'
import { DROP, describe, type Fit, type FitContext, type JsonSchema, keep, under } from './fit.js'

/**
 * The fit of `type: object`: declared properties fitted (a missing required one reported), others
 * fitted to `patternProperties` or `additionalProperties` when the object is open. The object is
 * copied only when a field changes.
 */
export function objectFit(schema: JsonSchema, context: FitContext): Fit {
  const entries = Object.entries(isRecord(schema['properties']) ? schema['properties'] : {})
  const keys = entries.map(([key]) => key)
  const fits = entries.map(([, sub]) => context.compile(sub as JsonSchema))
  const declared = new Set(keys)
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : [])
  const extra = schema['additionalProperties']
  const patterns = Object.entries(isRecord(schema['patternProperties']) ? schema['patternProperties'] : {}).map(
    ([source, sub]) => [new RegExp(source, 'u'), context.compile(sub as JsonSchema)] as const
  )
  const extraFit = isRecord(extra) ? context.compile(extra) : extra === true ? keep : undefined
  const open = extraFit !== undefined || patterns.length > 0
  return (value, issues) => {
    if (!isRecord(value)) {
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
