import type { RouteOptions } from 'fastify'
import { conditionalHeaders, etagHeader, preconditionFailedResponse, } from '../core/conditional-request.js'
import { locationHeader, } from '../core/location.js'
import type { RouterContext } from '../core/router-context.js'
import { preValidationFillingScope } from '../core/scoped-write.js'
import { createHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { validationErrorRef } from '../schema/error-schemas.js'

/** POST <prefix>: 201 with the created document. */
export function buildCreateRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('CreateOne', {
    201: { ...context.refs.read, description: 'The created document, as GET one answers it', headers: { ...locationHeader, ...etagHeader } },
    ...preconditionFailedResponse('If-None-Match is `*` and a document with this id exists'),
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not created (duplicate id or identifier)' },
  })
  return {
    method: 'POST',
    url,
    ...route,
    ...preValidationFillingScope(context, route.preValidation),
    schema: { ...route.schema, summary: `Create a document in ${context.options.collectionName}`, body: context.refs.body, headers: conditionalHeaders('create') },
    handler: createHandler(resource),
  }
}
