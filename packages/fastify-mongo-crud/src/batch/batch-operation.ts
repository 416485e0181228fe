import type { FastifyReply, FastifyRequest } from 'fastify'
import { invalidBody, routeDisabled, unsupportedMediaType } from '../errors.js'
import { PATCH_MEDIA_TYPES, patchMediaType } from '../patch/patch-media-types.js'
import type { WireDoc } from '../store/store.js'
import { type BatchKind, ROUTE_OF } from './batch-kind.js'
import type { BatchOperation } from './batch-schemas.js'

/** What one operation did: its status, the document it wrote (as stored), and the request it ran as. */
export interface OperationDone {
  readonly status: number
  readonly doc?: WireDoc
  readonly request: FastifyRequest
}

const METHOD = { create: 'POST', replace: 'PUT', update: 'PATCH', delete: 'DELETE' } as const

/**
 * Runs one operation of a batch as its route runs the same request alone: refused when the route is
 * disabled, then its guards (dependencies), the scope's filling, the body's check, and the resource's
 * operation with its `If-Match`. Throws what the route would answer.
 */
export async function runOperation(kind: BatchKind, request: FastifyRequest, reply: FastifyReply, operation: BatchOperation): Promise<OperationDone> {
  const route = ROUTE_OF[operation.op]
  if (kind.disabled.has(route) || (operation.op === 'replace' && kind.checks.replace === undefined)) throw routeDisabled(operation.op)
  const id = operation.id
  if (operation.op !== 'create' && id === undefined) throw invalidBody([{ loc: ['id'], msg: `A ${operation.op} operation needs the id of its document`, type: 'missing' }])
  const alone = requestAlone(kind, request, operation)
  for (const guard of kind.guards(route)) await guard(alone, reply)
  const caller = { request: alone, reply }
  const preconditions = { ifMatch: operation.ifMatch }
  const { resource, checks } = kind
  switch (operation.op) {
    case 'create':
      await kind.fill?.(alone, alone.body)
      return { status: 201, doc: await resource.create(caller, checks.create(alone.body), {}), request: alone }
    case 'replace':
      await kind.fill?.(alone, alone.body)
      return { status: 200, doc: await resource.replace!(caller, id!, checks.replace!(alone.body), preconditions), request: alone }
    case 'update': {
      const type = patchMediaType(operation.contentType)
      if (type === undefined) throw unsupportedMediaType(operation.contentType ?? '')
      if (type === PATCH_MEDIA_TYPES.json) return { status: 200, doc: await resource.update(caller, id!, checks.patch(alone.body), preconditions), request: alone }
      const patch = type === PATCH_MEDIA_TYPES.merge ? checks.merge(alone.body) : checks.jsonPatch(alone.body)
      return { status: 200, doc: await resource.patch(caller, id!, type, patch, preconditions), request: alone }
    }
    case 'delete':
      await resource.delete(caller, id!, preconditions)
      return { status: 204, request: alone }
  }
}

/**
 * The request as the operation's own route would receive it: its method, path parameter, body and
 * `If-Match` (and `Content-Type`); everything else (headers, decorations the app's hooks set) is the
 * batch request's. Guards and the scope see exactly that.
 */
function requestAlone(kind: BatchKind, request: FastifyRequest, operation: BatchOperation): FastifyRequest {
  const params = operation.id === undefined ? { ...(request.params as object) } : { ...(request.params as object), [kind.param]: operation.id }
  const headers: Record<string, unknown> = { ...request.headers, 'content-type': operation.contentType ?? 'application/json' }
  if (operation.ifMatch === undefined) delete headers['if-match']
  else headers['if-match'] = operation.ifMatch
  // A copy: the body is filled and checked (defaults set) as the route would, not the batch's own.
  const body = structuredClone(operation.body)
  return Object.create(request, {
    method: { value: METHOD[operation.op], writable: true, enumerable: true },
    params: { value: params, writable: true, enumerable: true },
    headers: { value: headers, writable: true, enumerable: true },
    body: { value: body, writable: true, enumerable: true },
  }) as FastifyRequest
}
