import type { FastifyRequest, RouteOptions } from 'fastify'
import { createHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import { conditionalHeaders, etagHeader, preconditionFailedResponse, } from './conditional-request.js'
import { locationHeader, } from './location.js'
import type { RouterContext } from './router-context.js'
import { fillFromScope } from './scoped-write.js'

/** POST <prefix>: 201 with the created document. */
export function buildCreateRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('CreateOne', {
    201: { ...context.refs.read, description: 'The created document, as GET one answers it', headers: { ...locationHeader, ...etagHeader } },
    ...preconditionFailedResponse('If-None-Match is `*` and a document with this id exists'),
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not created (duplicate id or identifier)' },
  })
  // Fields the scope fixes are filled in after the dependencies ran and before validation.
  const fill = context.options.filterDependency === undefined ? [] : [(request: FastifyRequest) => fillFromScope(context, request)]
  const own = route.preValidation === undefined ? [] : [route.preValidation].flat()
  const preValidation = [...own, ...fill]
  return {
    method: 'POST',
    url,
    ...route,
    ...(preValidation.length > 0 ? { preValidation } : {}),
    schema: { ...route.schema, summary: `Create a document in ${context.options.collectionName}`, body: context.refs.body, headers: conditionalHeaders('create') },
    handler: createHandler(resource),
  }
}
