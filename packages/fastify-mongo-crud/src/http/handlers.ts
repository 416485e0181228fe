import type { FastifyReply, FastifyRequest } from 'fastify'
import { createOnly, notModified, sendETag } from '../core/conditional-request.js'
import { setLocation } from '../core/location.js'
import { serveList } from '../core/serve-list.js'
import type { StreamGate } from '../core/stream-gate.js'
import { PATCH_MEDIA_TYPES, patchMediaType } from '../patch/patch-media-types.js'
import type { GroupsQueryString } from '../query/group-query.js'
import type { ListQueryString } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import { missingBody } from '../schema/json-body-parser.js'
import type { WireDoc } from '../store/store.js'

/**
 * The handlers of every generated route, one per verb, over any kind of resource (resources/): the
 * HTTP side of an operation (status, `ETag`, `Location`, 304, the streamed list) is written here once,
 * and the routes of the router, of its lookups and of its embeds differ only in their schemas.
 */
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

const pathId = (request: FastifyRequest, param: string) => (request.params as Record<string, string>)[param] ?? ''

/** GET list: parse -> filter -> store page -> present, one pipeline for every kind (core/serve-list.ts). */
export function listHandler(resource: Resource, streams: StreamGate): Handler {
  return async (request, reply) => {
    const list = await resource.list({ request, reply }, request.query as ListQueryString)
    return serveList(request, reply, list.query, list.source, resource.presenter, streams, list.onPage)
  }
}

/**
 * GET _groups: one JSON array (at most `maxGroups` groups, never streamed). Its values are those the
 * database computed, sent as they are: the route's schema documents them, with the model's types.
 */
export function groupsHandler(resource: Resource): Handler {
  return async (request, reply) => {
    const groups = await resource.groups({ request, reply }, request.query as GroupsQueryString)
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(groups))
  }
}

/** GET one: the document with its `ETag`, or 304 when `If-None-Match` names it. */
export function getHandler(resource: Resource, param: string): Handler {
  return async (request, reply) => {
    const caller = { request, reply }
    const fields = resource.selectFields(request, (request.query as { fields?: string }).fields)
    const doc = await resource.get(caller, pathId(request, param), fields)
    // A projection is not the stored document: its tag could never pass an If-Match, so it gets none.
    if (fields === undefined && notModified(request, reply, doc, resource.tagKey(caller)) && resource.conditionalReads) return reply.code(304).send()
    return resource.present(doc, caller)
  }
}

/** POST: 201 with `Location` and `ETag`; `If-None-Match: *` creates only a new id. */
export function createHandler(resource: Resource): Handler {
  return async (request, reply) => {
    const caller = { request, reply }
    const created = await resource.create(caller, request.body as WireDoc, { createOnly: createOnly(request) })
    sendETag(reply, created, resource.tagKey(caller))
    return setLocation(request, reply, created[resource.idKey]).code(201).send(await resource.present(created, caller))
  }
}

/** PUT and PATCH: the written document with its new `ETag`; `If-Match` is part of the write. */
export function writeHandler(resource: Resource, param: string, operation: 'replace' | 'update'): Handler {
  const write = operation === 'replace' ? resource.replace : resource.update
  if (write === undefined) throw new TypeError(`this kind of resource has no ${operation}`)
  return async (request, reply) => {
    const caller = { request, reply }
    const doc = await write(caller, pathId(request, param), request.body as WireDoc, { ifMatch: request.headers['if-match'] })
    sendETag(reply, doc, resource.tagKey(caller))
    return resource.present(doc, caller)
  }
}

/**
 * PATCH: by its `Content-Type`, the fields sent are set (`application/json`, `writeHandler`), or a
 * merge patch or JSON Patch is applied (docs/patch.md). The parser let no other type through (415).
 */
export function patchHandler(resource: Resource, param: string): Handler {
  const update = writeHandler(resource, param, 'update')
  return async (request, reply) => {
    // Fastify checks a body by its media type: without a `Content-Type` it checks none. Only an empty
    // body gets here so (any other is 415, schema/json-body-parser.ts): missing, as an empty JSON body is.
    if (request.headers['content-type'] === undefined) throw missingBody()
    const type = patchMediaType(request.headers['content-type'])
    if (type === undefined || type === PATCH_MEDIA_TYPES.json) return update(request, reply)
    const caller = { request, reply }
    const doc = await resource.patch(caller, pathId(request, param), type, request.body, { ifMatch: request.headers['if-match'] })
    sendETag(reply, doc, resource.tagKey(caller))
    return resource.present(doc, caller)
  }
}

/** DELETE: 204 with an empty body. */
export function deleteHandler(resource: Resource, param: string): Handler {
  return async (request, reply) => {
    await resource.delete({ request, reply }, pathId(request, param), { ifMatch: request.headers['if-match'] })
    return reply.code(204).send()
  }
}
