import type { RouteOptions } from 'fastify'
import { conditionalHeaders, etagHeader, preconditionFailedResponse, } from '../core/conditional-request.js'
import type { RouterContext } from '../core/router-context.js'
import { preValidationFillingScope } from '../core/scoped-write.js'
import { replaceHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import { itemParams } from './read.js'

/** PUT <prefix>/{id}: replaces the whole document, keeping its id. */
export function buildReplaceRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('ReplaceOne', {
    200: { ...context.refs.read, description: 'The replaced document, as GET one answers it', headers: etagHeader },
    ...preconditionFailedResponse('If-Match names another version of the document'),
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not replaced (missing, or a duplicate identifier)' },
  })
  return {
    method: 'PUT',
    url,
    ...route,
    // A replace is a whole document: what the scope fixes is filled in as for a create.
    ...preValidationFillingScope(context, route.preValidation, 'update'),
    schema: {
      ...route.schema,
      summary: `Replace one document of ${context.options.collectionName}`,
      params: itemParams(context),
      body: context.refs.body,
      headers: conditionalHeaders('write'),
    },
    handler: replaceHandler(resource, context.itemParam),
  }
}
