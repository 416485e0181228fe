import type { Dependency } from '../dependency.js'
import { SetupError, type SetupErrorCode } from '../errors.js'
import { type InModel, isModel, isModelOut, type OutModel } from '../models.js'
import { camel, ROUTE_NAMES, type RouteName } from '../route-names.js'

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
/** The dependency lists as checked and stored (every key present); the typed option keys are `RouteDependencies`. */
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

export type DisableKey = `disable${RouteName}`
export type DisableOptions = { [K in DisableKey]?: boolean }

/**
 * The routes a declaration leaves out (`disableGetAll` ... `disableDeleteOne`), each a boolean like the
 * router's own keys. `routes` lists the keys the declaration takes (an embed has no ReplaceOne).
 */
export function checkDisabled(
  owner: string,
  code: SetupErrorCode,
  options: Record<string, unknown>,
  routes: readonly RouteName[] = ROUTE_NAMES
): ReadonlySet<RouteName> {
  const disabled = new Set<RouteName>()
  for (const name of routes) {
    const value = options[`disable${name}`]
    if (value !== undefined && typeof value !== 'boolean') {
      throw new SetupError(code, `${owner}: 'disable${name}' must be a boolean, received ${describeValue(value)}`)
    }
    if (value === true) disabled.add(name)
  }
  return disabled
}

/** Snake-case keys carried over from the Python original are refused with their camelCase name, as the router does. */
export function refuseSnakeCaseKeys(owner: string, code: SetupErrorCode, options: Record<string, unknown>): void {
  for (const key of Object.keys(options)) {
    if (key.startsWith('disable_') || key.startsWith('dependencies_')) {
      throw new SetupError(code, `${owner}: unknown option '${key}': use ${camel(key)}`)
    }
  }
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

/** The options object of a relation, refused when it uses snake_case keys, with its `model` and `modelOut` checked. */
export function relationModels<M extends InModel, O extends OutModel>(owner: string, code: SetupErrorCode, options: unknown): { raw: Record<string, unknown>, model: M, modelOut: O | undefined } {
  const raw = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>
  refuseSnakeCaseKeys(owner, code, raw)
  if (!isModel(raw['model'])) throw new SetupError(code, `${owner}: 'model' must be a model made by MongoModel()`)
  if (raw['modelOut'] !== undefined && !isModelOut(raw['modelOut'])) {
    throw new SetupError(code, `${owner}: 'modelOut' must be a model made by MongoModelOut()`)
  }
  return { raw, model: raw['model'] as M, modelOut: raw['modelOut'] as O | undefined }
}
