import type { RouteOptions } from 'fastify'
import { conditionalHeaders, etagHeader, notModifiedResponse } from '../core/conditional-request.js'
import type { RouterContext } from '../core/router-context.js'
import { getHandler } from '../http/handlers.js'
import type { Resource } from '../resources/resource.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'

/** GET <prefix>/{id}: the document, or "Document not found" for a missing, invalid or out-of-scope id. */
export function buildReadRoute(context: RouterContext, resource: Resource, url: string): RouteOptions {
  const route = context.routeOptions('GetOne', {
    200: { ...context.refs.read, description: 'The document', headers: etagHeader },
    // A populated document can change with its references, which its tag does not cover: no 304.
    ...(context.options.populates.length === 0 ? notModifiedResponse : {}),
    [context.options.notFoundStatus]: { ...errorRef, description: 'Document not found' },
    422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
  })
  return {
    method: 'GET',
    url,
    ...route,
    schema: {
      ...route.schema,
      summary: `Get one document of ${context.options.collectionName}`,
      params: itemParams(context),
      querystring: oneQuerySchema,
      headers: conditionalHeaders('read'),
    },
    handler: getHandler(resource, context.itemParam),
  }
}

/** GET one's query: `fields=` only. */
export const oneQuerySchema = {
  type: 'object',
  properties: { fields: { type: 'string', description: 'Comma-separated fields to answer (`id` always comes back), e.g. name,email.' } },
} as const

export function itemParams(context: RouterContext) {
  return {
    type: 'object',
    properties: {
      [context.itemParam]: {
        type: 'string',
        description: context.options.identifierField === '_id' ? 'Document id (24 hexadecimal characters)' : `The document's ${context.itemParam}`,
      },
    },
    required: [context.itemParam],
  }
}
