import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { fieldSelector } from '../query/parse-fields.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { conditionalHeaders, etagHeader, notModified, notModifiedResponse } from './conditional-request.js'
import type { RouterContext } from './router-context.js'

/** GET <prefix>/{id}: the document, or "Document not found" for a missing, invalid or out-of-scope id. */
export function buildReadRoute(context: RouterContext, url: string): RouteOptions {
  const route = context.routeOptions('GetOne', {
    200: { ...context.refs.read, description: 'The document', headers: etagHeader },
    // A populated document can change with its references, which its tag does not cover: no 304.
    ...(context.options.populates.length === 0 ? notModifiedResponse : {}),
    [context.options.notFoundStatus]: { ...errorRef, description: 'Document not found' },
    422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
  })
  const selectFields = fieldSelector(context.options.modelOut ?? context.options.model)
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
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const fields = selectFields(request, (request.query as { fields?: string }).fields)
      const filter = await context.itemFilter(request)
      const doc = filter === undefined ? undefined : await context.store.findOne(filter, fields)
      if (doc === undefined) throw context.notFound()
      // A projection is not the stored document: its tag could never pass an If-Match, so it gets none.
      if (fields === undefined && notModified(request, reply, doc, context.etagKey) && context.options.populates.length === 0) {
        return reply.code(304).send()
      }
      return context.present(doc, { request, reply })
    },
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
