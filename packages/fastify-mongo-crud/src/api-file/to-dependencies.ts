import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { refusing } from '../core/route-refusals.js'
import { type Dependency, type FilterDependency, securedBy } from '../dependency.js'
import { HTTPException } from '../errors.js'
import { ROUTE_NAMES, type RouteName } from '../route-names.js'
import { createValidatorCompiler } from '../schema/validator.js'
import type { ExtraRouteKey, Guard, Guards, HeaderGuard, JsonSchemaObject, RouteKey, Scope } from './api-file.js'
import type { BearerAuth } from './bearer-auth.js'
import { claimGuard, claimScope } from './claim-checks.js'
import { schemeNameOf } from './to-openapi-options.js'

const routeKey = (name: RouteName) => (name[0]!.toLowerCase() + name.slice(1)) as RouteKey

/** A guard as a dependency, on a header or on a claim of the token `auth` verified (claim-checks.ts). */
function toGuard(guard: Guard, auth: BearerAuth | undefined): Dependency {
  if (guard.claim === undefined) return headerGuard(guard)
  if (auth === undefined) throw new Error(`a claim guard needs 'auth' (check-security-schemes.ts refuses the file)`)
  return claimGuard(guard, auth)
}

/**
 * A header guard: the header must hold one of the accepted values. Headers are trusted as they
 * arrive, so the API belongs behind a gateway that sets them (docs/api-file.md). Declared with its
 * security scheme, so the routes it guards document it.
 */
function headerGuard(guard: HeaderGuard): Dependency {
  const header = guard.header.toLowerCase()
  const accepted = new Set(Array.isArray(guard.equals) ? guard.equals : [guard.equals])
  const status = guard.status ?? 403
  const detail = guard.detail ?? `Refused: this route requires the ${header} header`
  const check = securedBy(schemeNameOf(guard), (request: FastifyRequest) => {
    const value = request.headers[header]
    if (typeof value !== 'string' || !accepted.has(value)) throw new HTTPException(status, detail)
  })
  return refusing({ [status]: detail }, check)
}

/**
 * The scope's value, required and checked against its field's schema (an ObjectId field takes 24 hex
 * digits): a header (401 otherwise), or a claim of the verified token (claim-checks.ts).
 */
export function toScope(scope: Scope, field: JsonSchemaObject, auth: BearerAuth | undefined): { check: Dependency, filterDependency: FilterDependency } {
  const compile = createValidatorCompiler([]) as FastifySchemaCompiler<TSchema>
  const validate = compile({ schema: field as TSchema, method: 'GET', url: '/', httpPart: 'headers' }) as (value: unknown) => { error?: unknown }
  if (scope.claim !== undefined) {
    if (auth === undefined) throw new Error(`a claim scope needs 'auth' (check-security-schemes.ts refuses the file)`)
    return claimScope(scope, validate, auth)
  }
  const header = scope.header.toLowerCase()
  const detail = scope.detail ?? `Send the ${header} header`
  const scheme = schemeNameOf(scope)
  return {
    check: refusing(
      { 401: detail },
      securedBy(scheme, (request: FastifyRequest) => {
        const value = request.headers[header]
        if (typeof value !== 'string' || validate(value).error !== undefined) throw new HTTPException(401, detail)
      })
    ),
    filterDependency: securedBy(scheme, ((request) => ({ [scope.field]: request.headers[header] }) as Record<string, unknown>) as FilterDependency),
  }
}

/** `dependenciesGetAll` ... `dependenciesDeleteOne`: `first` (the token check, the scope check) before the route's guards. */
export function toDependencies(
  guards: Guards | undefined,
  first: readonly Dependency[],
  auth: BearerAuth | undefined,
  routes: readonly RouteName[] = ROUTE_NAMES
): Record<string, Dependency[]> {
  const made = new Map<Guard, Dependency>()
  const out: Record<string, Dependency[]> = {}
  for (const name of routes) {
    const list = (guards?.[routeKey(name)] ?? []).map((guard) => {
      let dependency = made.get(guard)
      if (dependency === undefined) {
        dependency = toGuard(guard, auth)
        made.set(guard, dependency)
      }
      return dependency
    })
    list.unshift(...first)
    if (list.length > 0) out[`dependencies${name}`] = list
  }
  return out
}

/** `disableGetAll: true` ... (a router's `disableBatch` ... too) for the routes the file's `disable` lists. */
export function toDisabled(disable: ReadonlyArray<RouteKey | ExtraRouteKey> | undefined): Record<string, true> {
  return Object.fromEntries((disable ?? []).map((key) => [`disable${key[0]!.toUpperCase()}${key.slice(1)}`, true]))
}
