import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notReplaced } from '../errors.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import { withoutBodyId } from './body-id.js'
import { checkIfMatch, conditionalHeaders, etagHeader, guardedWrite, preconditionFailedResponse, sendETag } from './conditional-request.js'
import { writeOrExplain } from './create.js'
import { itemParams } from './read.js'
import type { RouterContext } from './router-context.js'
import { scopedWrite } from './scoped-write.js'

/** PUT <prefix>/{id}: replaces the whole document, keeping its id. */
export function buildReplaceRoute(context: RouterContext, url: string): RouteOptions {
  const { keepOnReplace, replaced } = replaceRules(context)
  const route = context.routeOptions('ReplaceOne', {
    200: { ...context.refs.read, description: 'The replaced document, as GET one answers it', headers: etagHeader },
    ...preconditionFailedResponse('If-Match names another version of the document'),
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not replaced (missing, or a duplicate identifier)' },
  })
  return {
    method: 'PUT',
    url,
    ...route,
    schema: {
      ...route.schema,
      summary: `Replace one document of ${context.options.collectionName}`,
      params: itemParams(context),
      body: context.refs.body,
      headers: conditionalHeaders('write'),
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const body = withoutBodyId(request, context.itemParam, context.options.identifierField)
      const filter = await context.itemFilter(request)
      if (filter === undefined) throw notReplaced()
      const unchanged = await checkIfMatch(request, context.etagKey, () => context.store.findSnapshot(filter), notReplaced)
      const doc = await scopedWrite(
        context,
        request,
        filter,
        { after: body, isKnown: replaced },
        (guarded) =>
          guardedWrite(
            unchanged,
            () => writeOrExplain(() => context.store.replace(guarded, body, keepOnReplace, unchanged), notReplaced),
            () => context.store.findOne(guarded)
          ),
        notReplaced
      )
      sendETag(reply, doc, context.etagKey)
      return context.present(doc, { request, reply })
    },
  }
}

/** What a replace keeps and what it decides; the route and the service API (service/build-service.ts) share it. */
export function replaceRules(context: RouterContext): { keepOnReplace: string[], replaced: (field: string) => boolean } {
  // Embedded item arrays are managed by their own routes: replacing the parent keeps them.
  const keepOnReplace = context.options.embeds.map((embed) => embed.embedName)
  // What a PUT decides: the model's fields (sent, or removed when left out); the rest is kept.
  const declared = new Set(context.typed.kind === 'object' ? context.typed.fields.keys() : [])
  return { keepOnReplace, replaced: (field) => declared.has(field) && field !== '_id' && !keepOnReplace.includes(field) }
}
