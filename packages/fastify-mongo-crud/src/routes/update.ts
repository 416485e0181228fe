import type { RouteOptions } from 'fastify'
import { conditionalHeaders, etagHeader, preconditionFailedResponse, } from '../core/conditional-request.js'
import type { RouterContext } from '../core/router-context.js'
import { patchHandler } from '../http/handlers.js'
import { patchBodySchema } from '../patch/patch-media-types.js'
import type { Resource } from '../resources/resource.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import { itemParams } from './read.js'

/**
 * PATCH <prefix>/{id}: a true partial update; only the keys sent change, `null` clears a field. Or,
 * by its media type, a merge patch or a JSON Patch (docs/patch.md).
 */
export function buildUpdateRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('UpdateOne', {
    200: { ...context.refs.read, description: 'The updated document, as GET one answers it', headers: etagHeader },
    ...preconditionFailedResponse('If-Match names another version of the document'),
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not updated (missing, or a duplicate identifier)' },
  })
  return {
    method: 'PATCH',
    url,
    ...route,
    schema: {
      ...route.schema,
      summary: `Update part of one document of ${context.options.collectionName}`,
      params: itemParams(context),
      body: patchBodySchema(context.refs.patch),
      headers: conditionalHeaders('write'),
    },
    handler: patchHandler(resource, context.itemParam),
  }
}
