import type { FastifyRequest } from 'fastify'
import type { WriteOperation } from './write-operation.js'

const METHOD = { create: 'POST', replace: 'PUT', update: 'PATCH', delete: 'DELETE' } as const

/**
 * What the guards (`dependencies*`) of an operation that did not come as its own request see
 * (docs/batch.md): the request of the channel, with the method, path parameter, body, `Content-Type`
 * and `If-Match` the operation's route would have received. Everything else (headers, decorations
 * the app's hooks set) is the channel's request, which it inherits. Guards are functions of a request
 * by their contract; nothing but guards and the scope they may compute sees this view.
 */
export function operationRequest(request: FastifyRequest, param: string, operation: WriteOperation): FastifyRequest {
  const params = operation.id === undefined ? { ...(request.params as object) } : { ...(request.params as object), [param]: operation.id }
  const headers: Record<string, unknown> = { ...request.headers, 'content-type': operation.contentType ?? 'application/json' }
  if (operation.ifMatch === undefined) delete headers['if-match']
  else headers['if-match'] = operation.ifMatch
  return Object.create(request, {
    method: { value: METHOD[operation.op], writable: true, enumerable: true },
    params: { value: params, writable: true, enumerable: true },
    headers: { value: headers, writable: true, enumerable: true },
    body: { value: operation.body, writable: true, enumerable: true },
  }) as FastifyRequest
}
