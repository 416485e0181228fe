import type { RouteOptions } from 'fastify'
import { nextLinkHeader } from '../core/list-page.js'
import type { RouterContext } from '../core/router-context.js'
import { countHeaders, preferHeaderSchema } from '../core/total-count.js'
import { listHandler } from '../http/handlers.js'
import { listQuerySchema } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'

/** GET <prefix>: filter -> sort -> skip -> limit, as a JSON array. */
export function buildListRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const { options } = context
  const route = context.routeOptions('GetAll', {
    200: { type: 'array', items: context.refs.read, description: 'The matching documents', headers: { ...countHeaders, ...nextLinkHeader } },
    422: { ...validationErrorRef, description: 'Invalid query parameters' },
    503: { ...errorRef, description: 'Too many lists are being streamed (Retry-After), the database has no memory free for this sort right now (Retry-After), or the query exceeded its time limit (maxTimeMS)' },
  })
  return {
    method: 'GET',
    url,
    ...route,
    schema: { ...route.schema, summary: `List ${options.collectionName}`, querystring: listQuerySchema, headers: preferHeaderSchema },
    handler: listHandler(resource, context.streams),
  }
}
