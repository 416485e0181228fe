import { isRecord } from '../is-record.js'
import { DROP, describe, type Fit, type FitContext, type JsonSchema, keep, under } from './fit.js'

/** The fit of `type: array`: each item fitted to `items`; the array is copied only from the first item that changes. */
export function arrayFit(schema: JsonSchema, context: FitContext): Fit {
  const items = isRecord(schema['items']) ? context.compile(schema['items']) : keep
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
