import type { RouteOptions } from 'fastify'
import type { ResolvedRouterOptions } from '../options.js'
import { EVENTS_SEGMENT, type ExtraRouteName, GROUPS_SEGMENT } from '../route-names.js'

const READ_SEGMENTS: ReadonlyArray<readonly [string, ExtraRouteName]> = [
  [GROUPS_SEGMENT, 'Groups'],
  [EVENTS_SEGMENT, 'Events'],
]

/**
 * GET `<prefix>/_groups` and `<prefix>/_events` where the router serves neither (`disableGroups`,
 * `disableEvents`, or `disableGetAll`, which they go with): 404 as any unknown route. Without these,
 * GET one would take the segment for a document's id and answer "Document not found" (400 by default),
 * as if the route were there. Hidden from OpenAPI (the names and docs plugin.ts gives every route stay
 * out of the document with them), and guarded by nothing: they read nothing.
 */
export function unservedSegmentRoutes(options: Pick<ResolvedRouterOptions, 'disabled' | 'disabledExtras'>): RouteOptions[] {
  // Without GET one, nothing takes the segment for an id: the path is unknown already.
  if (options.disabled.has('GetOne')) return []
  const listed = !options.disabled.has('GetAll')
  return READ_SEGMENTS.filter(([, name]) => !listed || options.disabledExtras.has(name)).map(([segment]) => ({
    method: 'GET',
    url: `/${segment}`,
    schema: { hide: true },
    handler: (_request, reply) => reply.callNotFound(),
  }))
}
