import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notCreated, StoreError, tooLarge } from '../errors.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import type { WireDoc } from '../store/store.js'
import { conditionalHeaders, createOnly, etagHeader, exists, preconditionFailedResponse, sendETag } from './conditional-request.js'
import { locationHeader, setLocation } from './location.js'
import type { RouterContext } from './router-context.js'
import { checkCreateInScope, fillFromScope } from './scoped-write.js'

/** POST <prefix>: 201 with the created document. */
export function buildCreateRoute(context: RouterContext, url: string): RouteOptions {
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
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const doc = request.body as WireDoc
      await checkCreateInScope(context, request, doc)
      const created = await writeOrExplain(() => context.store.insert(doc), createOnly(request) ? exists : notCreated)
      sendETag(reply, created, context.etagKey)
      return setLocation(request, reply, created[context.itemParam]).code(201).send(await context.present(created, { request, reply }))
    },
  }
}

/** Runs a write, answering the store's refusals with the route's documented errors. */
export async function writeOrExplain<T>(write: () => Promise<T>, refused: () => Error): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_DUPLICATE') throw refused()
    if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_TOO_LARGE') throw tooLarge()
    throw error
  }
}
