import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notDeleted } from '../errors.js'
import { errorRef } from '../schema/error-schemas.js'
import { checkIfMatch, conditionalHeaders, guardedWrite, preconditionFailedResponse } from './conditional-request.js'
import { itemParams } from './read.js'
import type { RouterContext } from './router-context.js'

/** DELETE <prefix>/{id}: 204 with an empty body. */
export function buildRemoveRoute(context: RouterContext, url: string): RouteOptions {
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
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const filter = await context.itemFilter(request)
      if (filter === undefined) throw notDeleted()
      const unchanged = await checkIfMatch(request, context.etagKey, () => context.store.findSnapshot(filter), notDeleted)
      const removed = await guardedWrite(unchanged, () => context.store.remove(filter, unchanged), () => context.store.findOne(filter))
      if (!removed) throw notDeleted()
      return reply.code(204).send()
    },
  }
}
