import type { FastifyRequest, RouteOptions } from 'fastify'
import { refusalResponses } from '../core/route-refusals.js'
import { routeSecurity } from '../core/route-security.js'
import type { RouterContext } from '../core/router-context.js'
import type { DependencyOptions } from '../options/relation-options.js'
import type { RouteName } from '../options.js'
import type { Filter } from '../query/filter.js'
import { errorRef } from '../schema/error-schemas.js'
import type { WireDoc } from '../store/store.js'

/**
 * What child routes (lookups and embeds) share: the parent is looked up through the parent router's
 * identifier and scope, so a child route can never reach a parent the caller could not GET.
 */
export async function parentFilter(context: RouterContext, request: FastifyRequest, op: 'read' | 'update' = 'read'): Promise<Filter> {
  const filter = await context.itemFilter(request, undefined, op)
  if (filter === undefined) throw context.notFound()
  return filter
}

export async function loadParent(context: RouterContext, request: FastifyRequest): Promise<WireDoc> {
  const parent = await context.store.findOne(await parentFilter(context, request))
  if (parent === undefined) throw context.notFound()
  return parent
}

/** Child routes that read the parent: lookup routes (children live in another collection) and embed reads. */
export const READS_PARENT: readonly RouteName[] = ['GetOne']
/** Writing an embedded item is an update of the parent (one atomic update of its array): it passes the parent's GetOne, then UpdateOne guards. */
export const UPDATES_PARENT: readonly RouteName[] = ['GetOne', 'UpdateOne']

/**
 * Schema and hooks of one child route: the parent router's tags, the parent's dependencies for
 * `parentRoutes` in that order, then the declaration's own dependencies for that route. A function
 * listed twice (say in the parent's GetOne and UpdateOne) runs once, at its first place.
 */
export function childRouteOptions(
  context: RouterContext,
  own: Required<DependencyOptions>,
  name: RouteName,
  parentRoutes: readonly RouteName[],
  params: object,
  responses: Record<number, object>
) {
  const dependencies = childDependencies(context, own, name, parentRoutes)
  const security = routeSecurity([...dependencies, context.options.filterDependency])
  const schema: Record<string, unknown> = {
    tags: [...context.options.tags],
    ...(security === undefined ? {} : { security }),
    params,
    response: {
      ...responses,
      [context.options.notFoundStatus]: { ...errorRef, description: 'Document not found (the parent, or the child on GET)' },
      ...refusalResponses(dependencies),
    },
  }
  const preValidation = dependencies.map((dependency) => async (request: FastifyRequest, reply: Parameters<typeof dependency>[1]) => {
    await dependency(request, reply)
  })
  return preValidation.length > 0 ? { schema, preValidation } : { schema }
}

/** The dependencies a child route runs: the parent's for `parentRoutes`, then its own; each function once, at its first place. */
export function childDependencies(context: RouterContext, own: Required<DependencyOptions>, name: RouteName, parentRoutes: readonly RouteName[]) {
  return [...new Set([...parentRoutes.flatMap((route) => context.options.dependencies[route]), ...own[`dependencies${name}`]])]
}

/** The child routes a declaration keeps: those its `disable*` keys leave out are never registered. */
export function enabledRoutes(disabled: ReadonlySet<RouteName>, routes: Partial<Record<RouteName, RouteOptions>>): RouteOptions[] {
  return (Object.entries(routes) as [RouteName, RouteOptions][]).filter(([name]) => !disabled.has(name)).map(([, route]) => route)
}

/** Path parameters of child routes: the parent's identifier, then the child's own id if any. */
export function childParams(context: RouterContext, childParam?: string) {
  const properties: Record<string, object> = { [context.itemParam]: { type: 'string', description: "The parent's identifier" } }
  if (childParam !== undefined) properties[childParam] = { type: 'string', description: 'Child id (24 hexadecimal characters)' }
  return { type: 'object', properties, required: Object.keys(properties) }
}
