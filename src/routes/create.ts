import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notCreated, StoreError, tooLarge } from '../errors.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import type { WireDoc } from '../store/store.js'
import type { RouterContext } from './router-context.js'

/** POST <prefix>: 201 with the created document. */
export function buildCreateRoute(context: RouterContext, url: string): RouteOptions {
  const route = context.routeOptions('CreateOne', {
    201: { ...context.refs.read, description: 'The created document, as GET one answers it' },
    422: { ...validationErrorRef, description: 'Invalid body, or the document was not created (duplicate id or identifier)' },
  })
  return {
    method: 'POST',
    url,
    ...route,
    schema: { ...route.schema, summary: `Create a document in ${context.options.collectionName}`, body: context.refs.body },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const created = await writeOrExplain(() => context.store.insert(request.body as WireDoc), notCreated)
      return reply.code(201).send(await context.present(created))
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
