import type { RouteOptions } from 'fastify'
import { conditionalHeaders, preconditionFailedResponse } from '../core/conditional-request.js'
import type { RouterContext } from '../core/router-context.js'
import { deleteHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { errorRef } from '../schema/error-schemas.js'
import { itemParams } from './read.js'

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
