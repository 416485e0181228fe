import type { FastifyRequest } from 'fastify'
import { invalidBody } from '../errors.js'
import type { WireDoc } from '../store/store.js'

/**
 * PUT and PATCH bodies may repeat the document's id, but never change it: an `id` that differs from
 * the path (or from the stored document) is refused rather than silently ignored.
 */
export function withoutBodyId(request: FastifyRequest, itemParam: string, identifierField: string): WireDoc {
  const { id, ...rest } = request.body as WireDoc
  if (id === undefined || id === null) return rest
  const pathId = (request.params as Record<string, string>)[itemParam]
  if (identifierField === '_id' && typeof id === 'string' && id.toLowerCase() === pathId?.toLowerCase()) return rest
  throw invalidBody([{ loc: ['body', 'id'], msg: 'The id in the body must match the id in the path', type: 'id_mismatch' }])
}
