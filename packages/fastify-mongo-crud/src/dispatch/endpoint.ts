import type { FastifyRequest } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { fillFromScope } from '../core/scoped-write.js'
import type { Dependency } from '../dependency.js'
import type { RouteName } from '../options.js'
import { CHILD_PARAM, type LookupPlan } from '../relations/lookup-plan.js'
import { childDependencies, READS_PARENT } from '../relations/parent.js'
import type { Resource } from '../resources/resource.js'
import type { Bodied, Bodies, BodyChecks } from './body-checks.js'

/**
 * One kind of document (the router's own, a lookup's children) as every channel reaches it, resolved
 * once at registration: its resource, the guards and `disable*` of each of its routes, the fields the
 * scope fills in, and its body checks. The routes run the same guards and fill as their `preValidation`
 * hooks; `_batch` and the service API run them through the dispatch (dispatch.ts).
 */
export interface Endpoint {
  readonly resource: Resource
  /** The path parameter of one document. */
  readonly param: string
  readonly disabled: ReadonlySet<RouteName>
  /** The dependencies a route runs, in its order. */
  guards(route: RouteName): readonly Dependency[]
  /** The router's `filterDependency`, which every operation runs too: its `securedBy` shows in OpenAPI. */
  readonly scope: unknown
  /** Before a create's or a replace's (`update`) body is checked: the fields the scope or the role's filter fixes (the router's own documents). */
  readonly fill?: ((request: FastifyRequest, body: unknown, op: 'create' | 'update') => Promise<void>) | undefined
  readonly checks: BodyChecks
  /** The bodies' schemas, as OpenAPI shows them. */
  readonly bodies: Bodies
}

/** The router's own documents: its routes' guards; creates and replaces filled from the scope first. */
export function collectionEndpoint(context: RouterContext, resource: Resource, bodied: Bodied): Endpoint {
  const { options } = context
  return {
    resource,
    param: context.itemParam,
    disabled: options.disabled,
    guards: (route) => options.dependencies[route],
    scope: options.filterDependency,
    fill: context.guarded ? (request, body, op) => fillFromScope(context, request, body, op) : undefined,
    ...bodied,
  }
}

/** A lookup's children: the parent's GetOne guards, then the lookup's own, as its child routes run them. */
export function lookupEndpoint(context: RouterContext, plan: LookupPlan, resource: Resource, bodied: Bodied): Endpoint {
  return {
    resource,
    param: CHILD_PARAM,
    disabled: plan.lookup.disabled,
    guards: (route) => childDependencies(context, plan.lookup.dependencies, route, READS_PARENT),
    scope: context.options.filterDependency,
    ...bodied,
  }
}
