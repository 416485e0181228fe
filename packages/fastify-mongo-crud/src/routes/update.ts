import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notUpdated } from '../errors.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import { withoutBodyId } from './body-id.js'
import { checkIfMatch, conditionalHeaders, etagHeader, guardedWrite, preconditionFailedResponse, sendETag } from './conditional-request.js'
import { writeOrExplain } from './create.js'
import { itemParams } from './read.js'
import type { RouterContext } from './router-context.js'
import { scopedWrite } from './scoped-write.js'

/** PATCH <prefix>/{id}: a true partial update; only the keys sent change, `null` clears a field. */
export function buildUpdateRoute(context: RouterContext, url: string): RouteOptions {
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
      body: context.refs.patch,
      headers: conditionalHeaders('write'),
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const changes = withoutBodyId(request, context.itemParam, context.options.identifierField)
      const filter = await context.itemFilter(request)
      if (filter === undefined) throw notUpdated()
      const unchanged = await checkIfMatch(request, context.etagKey, () => context.store.findSnapshot(filter), notUpdated)
      const doc = await scopedWrite(
        context,
        request,
        filter,
        { after: changes, isKnown: (field) => Object.hasOwn(changes, field) },
        (guarded) =>
          guardedWrite(
            unchanged,
            () => writeOrExplain(() => context.store.update(guarded, { set: changes }, unchanged), notUpdated),
            () => context.store.findOne(guarded)
          ),
        notUpdated
      )
      sendETag(reply, doc, context.etagKey)
      return context.present(doc, { request, reply })
    },
  }
}
