import type { FastifyRequest } from 'fastify'
import { invalidBody } from '../errors.js'
import type { WireDoc } from '../store/store.js'

/**
 * PUT and PATCH bodies may repeat the document's id, but never change it: an `id` that differs from
 * the path (or from the stored document) is refused rather than silently ignored.
 */
export function withoutBodyId(request: FastifyRequest, itemParam: string, identifierField: string): WireDoc {
  return bodyWithoutId(request.body as WireDoc, (request.params as Record<string, string>)[itemParam], identifierField)
}

/** The same check on a body and the identifier it is written to (the service API has no path). */
export function bodyWithoutId(body: WireDoc, pathId: string | undefined, identifierField: string): WireDoc {
  const { id, ...rest } = body
  if (id === undefined || id === null) return rest
  if (identifierField === '_id' && typeof id === 'string' && id.toLowerCase() === pathId?.toLowerCase()) return rest
  throw invalidBody([{ loc: ['body', 'id'], msg: 'The id in the body must match the id in the path', type: 'id_mismatch' }])
}
