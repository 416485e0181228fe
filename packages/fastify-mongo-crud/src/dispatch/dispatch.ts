import type { FastifyRequest } from 'fastify'
import type { Caller } from '../core/router-context.js'
import { invalidBody, routeDisabled, unsupportedMediaType } from '../errors.js'
import { PATCH_MEDIA_TYPES, patchMediaType } from '../patch/patch-media-types.js'
import type { Resource } from '../resources/resource.js'
import type { WireDoc } from '../store/store.js'
import type { Endpoint } from './endpoint.js'
import { ROUTE_OF, type WriteOperation } from './write-operation.js'

export { ROUTE_OF, WRITE_OPS, type WriteOp, type WriteOperation } from './write-operation.js'

/** What a write did: its status and the document it wrote (as stored). */
export interface Outcome {
  readonly status: 200 | 201 | 204
  readonly doc?: WireDoc
}

/**
 * The steps before the write that a channel has the dispatch run. A batch runs them all; the service
 * API checks bodies and fills the scope but runs no route's guards (docs/service-api.md). A route runs
 * its guards and the scope's fill as `preValidation` hooks and checks its body by its schema, built
 * from the same options (core/router-context.ts, core/scoped-write.ts), in the same order, so that
 * OpenAPI and the app's own hooks see them: it enters at the write (`runWrite`).
 */
export interface Steps {
  /** `disable*`, then the route's guards, with the operation as the request's `crudOperation`. */
  readonly guards: boolean
  /** The scope's fill, then the body's check (a copy: the caller's value is left as it was). */
  readonly check: boolean
}
export const BATCH_STEPS: Steps = { guards: true, check: true }
export const SERVICE_STEPS: Steps = { guards: false, check: true }

/**
 * Every write of every channel, in this order: the route's `disable*` and guards, the scope's fill,
 * the body's check, the resource's operation with its conditional write (resources/). Throws what
 * the route would answer. What the channel shows of the outcome (an HTTP answer, a batch result, a
 * service value) is its own business.
 */
export async function dispatch(endpoint: Endpoint, operation: WriteOperation, caller: Caller, steps: Steps): Promise<Outcome> {
  const { request } = caller
  if (steps.guards) {
    const route = ROUTE_OF[operation.op]
    if (endpoint.disabled.has(route) || (operation.op === 'replace' && endpoint.checks.replace === undefined)) throw routeDisabled(operation.op)
    if (operation.op !== 'create' && operation.id === undefined) throw invalidBody([{ loc: ['id'], msg: `A ${operation.op} operation needs the id of its document`, type: 'missing' }])
    // The guards are functions of the request that carried the operation; the operation is named on it
    // while they run (an app's hooks, such as the one setting `request.user`, have run on that request).
    const { op, id, body, ifMatch } = operation
    request.crudOperation = { op, id, body, ifMatch, contentType: operation.contentType ?? PATCH_MEDIA_TYPES.json }
    try {
      for (const guard of endpoint.guards(route)) await guard(request, caller.reply!)
    } finally {
      request.crudOperation = undefined
    }
  }
  const body = steps.check ? await checkedBody(endpoint, request, operation) : operation.body
  return runWrite(endpoint.resource, { ...operation, body }, caller)
}

/** The body as its route would receive it: filled from the scope (creates and replaces), then checked by its media type. */
async function checkedBody(endpoint: Endpoint, request: FastifyRequest, operation: WriteOperation): Promise<unknown> {
  const { checks } = endpoint
  const body = structuredClone(operation.body)
  switch (operation.op) {
    case 'create':
      await endpoint.fill?.(request, body, 'create')
      return checks.create(body)
    case 'replace':
      await endpoint.fill?.(request, body, 'update')
      if (checks.replace === undefined) throw routeDisabled('replace')
      return checks.replace(body)
    case 'update': {
      const type = mediaTypeOf(operation)
      return type === PATCH_MEDIA_TYPES.json ? checks.patch(body) : type === PATCH_MEDIA_TYPES.merge ? checks.merge(body) : checks.jsonPatch(body)
    }
    case 'delete':
      return undefined
  }
}

/**
 * The last step of every write: the resource's operation, with its preconditions (the conditional
 * write is the resource's, core/conditional-request.ts). The body is checked and the caller admitted.
 */
export async function runWrite(resource: Resource, operation: WriteOperation, caller: Caller): Promise<Outcome> {
  const id = operation.id ?? ''
  const preconditions = { ifMatch: operation.ifMatch }
  const body = operation.body as WireDoc
  switch (operation.op) {
    case 'create':
      return { status: 201, doc: await resource.create(caller, body, { createOnly: operation.createOnly === true }) }
    case 'replace':
      if (resource.replace === undefined) throw routeDisabled('replace')
      return { status: 200, doc: await resource.replace(caller, id, body, preconditions) }
    case 'update': {
      const type = mediaTypeOf(operation)
      if (type === PATCH_MEDIA_TYPES.json) return { status: 200, doc: await resource.update(caller, id, body, preconditions) }
      return { status: 200, doc: await resource.patch(caller, id, type, body, preconditions) }
    }
    case 'delete':
      await resource.delete(caller, id, preconditions)
      return { status: 204 }
  }
}

function mediaTypeOf(operation: WriteOperation) {
  const type = patchMediaType(operation.contentType ?? PATCH_MEDIA_TYPES.json)
  if (type === undefined) throw unsupportedMediaType(operation.contentType ?? '')
  return type
}
