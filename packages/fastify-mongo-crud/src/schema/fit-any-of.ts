import type { ValidateFunction } from 'ajv'
import { DROP, describe, type Fit, type FitContext, type FitIssue, type JsonSchema } from './fit.js'

/**
 * The fit of `anyOf` (or `oneOf`): a value one branch accepts as is is kept; otherwise the first branch
 * whose fit makes it acceptable to that branch's check wins, so a fitted value always serializes.
 */
export function anyOfFit(variants: JsonSchema[], context: FitContext): Fit {
  const branches = variants.map((variant) => ({ fit: context.compile(variant), check: undefined as ValidateFunction | undefined, schema: variant }))
  const checks = (index: number, value: unknown) => {
    const branch = branches[index]!
    branch.check ??= context.validator(branch.schema)
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
