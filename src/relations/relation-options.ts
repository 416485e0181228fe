import { SetupError, type SetupErrorCode } from '../errors.js'
import type { Dependency } from '../options.js'

/** The six per-route dependency keys, shared by routers and child declarations. */
export const DEPENDENCY_KEYS = [
  'dependenciesGetAll',
  'dependenciesGetOne',
  'dependenciesCreateOne',
  'dependenciesReplaceOne',
  'dependenciesUpdateOne',
  'dependenciesDeleteOne',
] as const

export type DependencyKey = (typeof DEPENDENCY_KEYS)[number]
export type DependencyOptions = { [K in DependencyKey]?: Dependency[] }

export function checkDependencies(owner: string, code: SetupErrorCode, options: Record<string, unknown>): Required<DependencyOptions> {
  const out = {} as Required<DependencyOptions>
  for (const key of DEPENDENCY_KEYS) {
    const value = options[key] ?? []
    if (!Array.isArray(value) || !value.every((d) => typeof d === 'function')) {
      throw new SetupError(code, `${owner}: '${key}' must be an array of functions, received ${describeValue(value)}`)
    }
    out[key] = value as Dependency[]
  }
  return out
}

export function requireName(owner: string, code: SetupErrorCode, options: Record<string, unknown>, key: string): string {
  const value = options[key]
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SetupError(code, `${owner}: '${key}' must be a non-empty string, received ${describeValue(value)}`)
  }
  return value
}

export function describeValue(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
