import { DROP, describe, type Fit, type FitContext, type FitIssue, type JsonSchema, keep } from './fit.js'
import { arrayFit } from './fit-array.js'
import { objectFit } from './fit-object.js'
import { booleanFit, integerFit, numberFit } from './fit-scalars.js'
import { stringFit } from './fit-string.js'

/**
 * The fit of a schema's `type` (one or a list; implied by `properties` or `items`): null where `null` is
 * declared, otherwise the first declared type that fits.
 */
export function declaredTypeFit(schema: JsonSchema, context: FitContext): Fit {
  const types = declaredTypes(schema)
  if (types.length === 0) return keep
  const fits = types.filter((type) => type !== 'null').map((type) => byType(type, schema, context))
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

function declaredTypes(schema: JsonSchema): string[] {
  const declared = schema['type']
  return Array.isArray(declared)
    ? (declared as string[])
    : typeof declared === 'string'
      ? [declared]
      : schema['properties'] !== undefined
        ? ['object']
        : schema['items'] !== undefined
          ? ['array']
          : []
}

function byType(type: string, schema: JsonSchema, context: FitContext): Fit {
  switch (type) {
    case 'string':
      return stringFit(schema)
    case 'number':
      return numberFit
    case 'integer':
      return integerFit
    case 'boolean':
      return booleanFit
    case 'array':
      return arrayFit(schema, context)
    case 'object':
      return objectFit(schema, context)
    default:
      return keep
  }
}
