import type { ValidateFunction } from 'ajv'

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

export type JsonSchema = Record<string, unknown>

/** What the per-kind fits need from the compiler that builds them (fit-document.ts). */
export interface FitContext {
  /** The fit of a sub-schema, compiled once per schema object (recursive models included). */
  compile(schema: JsonSchema): Fit
  /** Ajv's check of an `anyOf` branch, as the serializer would choose it (without `required`). */
  validator(schema: JsonSchema): ValidateFunction
}

/** The fit of a schema that declares nothing to check. */
export const keep: Fit = (value) => value

/** Prefixes the paths of the issues a child value reported since `from` (paths are built only when something is wrong). */
export function under(issues: FitIssue[], from: number, key: string | number): void {
  for (let i = from; i < issues.length; i++) {
    const issue = issues[i]!
    issue.path = issue.path === '' ? String(key) : `${key}.${issue.path}`
  }
}

export const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`)
