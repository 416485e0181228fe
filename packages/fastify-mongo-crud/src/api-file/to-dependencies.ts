import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { type Dependency, type FilterDependency, securedBy } from '../dependency.js'
import { HTTPException } from '../errors.js'
import { ROUTE_NAMES, type RouteName } from '../route-names.js'
import { createValidatorCompiler } from '../schema/validator.js'
import type { Guard, Guards, JsonSchemaObject, RouteKey, Scope } from './api-file.js'
import { schemeNameOf } from './to-openapi-options.js'

const routeKey = (name: RouteName) => (name[0]!.toLowerCase() + name.slice(1)) as RouteKey

/**
 * A guard as a dependency: the header must hold one of the accepted values. Headers are trusted as
 * they arrive, so the API belongs behind a gateway that sets them (docs/api-file.md). Declared with
 * its security scheme, so the routes it guards document it.
 */
function toGuard(guard: Guard): Dependency {
  const header = guard.header.toLowerCase()
  const accepted = new Set(Array.isArray(guard.equals) ? guard.equals : [guard.equals])
  const status = guard.status ?? 403
  const detail = guard.detail ?? `Refused: this route requires the ${header} header`
  return securedBy(schemeNameOf(guard), (request: FastifyRequest) => {
    const value = request.headers[header]
    if (typeof value !== 'string' || !accepted.has(value)) throw new HTTPException(status, detail)
  })
}

/** The scope header, required and checked against its field's schema (an ObjectId field takes 24 hex digits): 401 otherwise. */
export function toScope(scope: Scope, field: JsonSchemaObject): { check: Dependency, filterDependency: FilterDependency } {
  const header = scope.header.toLowerCase()
  const detail = scope.detail ?? `Send the ${header} header`
  const compile = createValidatorCompiler([]) as FastifySchemaCompiler<TSchema>
  const validate = compile({ schema: field as TSchema, method: 'GET', url: '/', httpPart: 'headers' }) as (value: unknown) => { error?: unknown }
  const scheme = schemeNameOf(scope)
  return {
    check: securedBy(scheme, (request: FastifyRequest) => {
      const value = request.headers[header]
      if (typeof value !== 'string' || validate(value).error !== undefined) throw new HTTPException(401, detail)
    }),
    filterDependency: securedBy(scheme, ((request) => ({ [scope.field]: request.headers[header] }) as Record<string, unknown>) as FilterDependency),
  }
}

/** `dependenciesGetAll` ... `dependenciesDeleteOne`: `first` (the scope check) before the route's guards. */
export function toDependencies(guards: Guards | undefined, first: Dependency | undefined, routes: readonly RouteName[] = ROUTE_NAMES): Record<string, Dependency[]> {
  const made = new Map<Guard, Dependency>()
  const out: Record<string, Dependency[]> = {}
  for (const name of routes) {
    const list = (guards?.[routeKey(name)] ?? []).map((guard) => {
      let dependency = made.get(guard)
      if (dependency === undefined) {
        dependency = toGuard(guard)
        made.set(guard, dependency)
      }
      return dependency
    })
    if (first !== undefined) list.unshift(first)
    if (list.length > 0) out[`dependencies${name}`] = list
  }
  return out
}

/** `disableGetAll: true` ... for the routes the file's `disable` lists. */
export function toDisabled(disable: readonly RouteKey[] | undefined): Record<string, true> {
  return Object.fromEntries((disable ?? []).map((key) => [`disable${key[0]!.toUpperCase()}${key.slice(1)}`, true]))
}
