import type { RouteOptions } from 'fastify'
import { deleteHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { errorRef } from '../schema/error-schemas.js'
import { conditionalHeaders, preconditionFailedResponse } from './conditional-request.js'
import { itemParams } from './read.js'
import type { RouterContext } from './router-context.js'

/** DELETE <prefix>/{id}: 204 with an empty body. */
export function buildRemoveRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('DeleteOne', {
    204: { type: 'null', description: 'Deleted' },
    422: { ...errorRef, description: 'Document not deleted (missing, or already deleted)' },
    ...preconditionFailedResponse('If-Match names another version of the document'),
  })
  return {
    method: 'DELETE',
    url,
    ...route,
    schema: { ...route.schema, summary: `Delete one document of ${context.options.collectionName}`, params: itemParams(context), headers: conditionalHeaders('write') },
    handler: deleteHandler(resource, context.itemParam),
  }
}
