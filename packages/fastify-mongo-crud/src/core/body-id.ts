import { invalidBody } from '../errors.js'
import type { WireDoc } from '../store/store.js'

/**
 * PUT and PATCH bodies may repeat the document's id, but never change it: an `id` that differs from
 * the path (or from the stored document) is refused rather than silently ignored. Answers the body
 * without its `id`.
 */
export function bodyWithoutId(body: WireDoc, pathId: string | undefined, identifierField: string): WireDoc {
  const { id, ...rest } = body
  if (id === undefined || id === null) return rest
  if (identifierField === '_id' && typeof id === 'string' && id.toLowerCase() === pathId?.toLowerCase()) return rest
  throw invalidBody([{ loc: ['body', 'id'], msg: 'The id in the body must match the id in the path', type: 'id_mismatch' }])
}
