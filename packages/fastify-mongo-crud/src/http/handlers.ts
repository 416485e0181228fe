import type { FastifyReply, FastifyRequest } from 'fastify'
import { createOnly, notModified, sendETag } from '../core/conditional-request.js'
import { setLocation } from '../core/location.js'
import { serveList } from '../core/serve-list.js'
import type { StreamGate } from '../core/stream-gate.js'
import { runWrite, type WriteOperation } from '../dispatch/dispatch.js'
import { PATCH_MEDIA_TYPES, patchMediaType } from '../patch/patch-media-types.js'
import type { GroupsQueryString } from '../query/group-query.js'
import type { ListQueryString } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import { missingBody } from '../schema/json-body-parser.js'

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
    const fields = await resource.selectFields(caller, (request.query as { fields?: string }).fields)
    const doc = await resource.get(caller, pathId(request, param), fields)
    // A projection is not the stored document: its tag could never pass an If-Match, so it gets none.
    if (fields === undefined && notModified(request, reply, doc, resource.tagKey(caller)) && resource.conditionalReads) return reply.code(304).send()
    return resource.present(doc, caller)
  }
}

/**
 * The write a request asks for, through the dispatch every channel takes (dispatch/dispatch.ts): its
 * guards, the scope's fill and its body's check ran in the route's own lifecycle. The answer is the
 * written document with its `ETag` (201 with `Location` for a create), or 204 after a delete.
 */
async function answerWrite(resource: Resource, operation: WriteOperation, request: FastifyRequest, reply: FastifyReply) {
  const caller = { request, reply }
  const { status, doc } = await runWrite(resource, operation, caller)
  if (doc === undefined) return reply.code(status).send()
  sendETag(reply, doc, resource.tagKey(caller))
  if (status === 201) setLocation(request, reply, doc[resource.idKey])
  return reply.code(status).send(await resource.present(doc, caller))
}

/** POST: 201 with `Location` and `ETag`; `If-None-Match: *` creates only a new id. */
export function createHandler(resource: Resource): Handler {
  return (request, reply) => answerWrite(resource, { op: 'create', body: request.body, createOnly: createOnly(request) }, request, reply)
}

/** PUT: the written document with its new `ETag`; `If-Match` is part of the write. */
export function replaceHandler(resource: Resource, param: string): Handler {
  if (resource.replace === undefined) throw new TypeError('this kind of resource has no replace')
  return (request, reply) => answerWrite(resource, { op: 'replace', id: pathId(request, param), body: request.body, ifMatch: request.headers['if-match'] }, request, reply)
}

/**
 * PATCH: by its `Content-Type`, the fields sent are set (`application/json`), or a merge patch or
 * JSON Patch is applied (docs/patch.md). The parser let no other type through (415).
 */
export function patchHandler(resource: Resource, param: string): Handler {
  return (request, reply) => {
    // Fastify checks a body by its media type: without a `Content-Type` it checks none. Only an empty
    // body gets here so (any other is 415, schema/json-body-parser.ts): missing, as an empty JSON body is.
    if (request.headers['content-type'] === undefined) throw missingBody()
    const contentType = patchMediaType(request.headers['content-type']) ?? PATCH_MEDIA_TYPES.json
    return answerWrite(resource, { op: 'update', id: pathId(request, param), body: request.body, contentType, ifMatch: request.headers['if-match'] }, request, reply)
  }
}

/** DELETE: 204 with an empty body. */
export function deleteHandler(resource: Resource, param: string): Handler {
  return (request, reply) => answerWrite(resource, { op: 'delete', id: pathId(request, param), ifMatch: request.headers['if-match'] }, request, reply)
}
