import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notCreated, notDeleted, notReplaced, notUpdated, SetupError } from '../errors.js'
import type { MongoModelSchema } from '../models.js'
import type { ResolvedRouterOptions } from '../options.js'
import { allOf } from '../query/filter.js'
import type { ListQueryString } from '../query/list-query.js'
import { listQuerySchema } from '../query/list-query.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import { bodyWithoutId } from '../routes/body-id.js'
import {
  checkIfMatch,
  conditionalHeaders,
  createOnly,
  etagHeader,
  exists,
  guardedWrite,
  notModified,
  notModifiedResponse,
  preconditionFailedResponse,
  sendETag,
} from '../routes/conditional-request.js'
import { writeOrExplain } from '../routes/create.js'
import { collectionPlace, placeKey } from '../routes/etag.js'
import { nextLinkHeader, prepareListPage } from '../routes/list-page.js'
import { locationHeader, setLocation } from '../routes/location.js'
import { oneQuerySchema } from '../routes/read.js'
import type { RouterContext } from '../routes/router-context.js'
import { type ListPresenter, serveList } from '../routes/serve-list.js'
import { countHeaders, preferHeaderSchema } from '../routes/total-count.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { nodeAt } from '../schema/model-shape.js'
import { routerRefs } from '../schema/router-refs.js'
import { createCollectionStore } from '../store/collection-store.js'
import type { CollectionStore, WireDoc } from '../store/store.js'
import { checkLocalField } from './check-local-field.js'
import { buildChildModel, type ChildModel, ref } from './child-model.js'
import type { CRUDLookup } from './crud-lookup.js'
import { lookupLink } from './lookup-link.js'
import { childParams, childRouteOptions, enabledRoutes, READS_PARENT } from './parent.js'

const CHILD_PARAM = 'child_id'

/** A lookup resolved at registration: its store, models and the create body without the foreign field. */
export interface LookupPlan {
  readonly lookup: CRUDLookup
  readonly child: ChildModel
  readonly createBody: MongoModelSchema
  readonly store: CollectionStore
}

export function planLookup(lookup: CRUDLookup, options: ResolvedRouterOptions, context: RouterContext): LookupPlan {
  const child = buildChildModel(lookup.model, lookup.modelOut, context.listSpec, routerRefs(options))
  if (nodeAt(child.typed, [lookup.foreignField]) === undefined) {
    throw new SetupError('FMC_ERR_LOOKUP_INVALID', `CRUDLookup '${lookup.prefix}': 'foreignField' ${JSON.stringify(lookup.foreignField)} is not a field of the child model ${lookup.model.$id}`)
  }
  if (lookup.localField !== '_id' && nodeAt(context.typed, [lookup.localField]) === undefined) {
    throw new SetupError('FMC_ERR_LOOKUP_INVALID', `CRUDLookup '${lookup.prefix}': 'localField' ${JSON.stringify(lookup.localField)} is not a field of the parent model`)
  }
  checkLocalField(lookup, options)
  // The foreign field comes from the path, so the body may leave it out even when the model requires it.
  const required = (lookup.model as { required?: string[] }).required?.filter((name) => name !== lookup.foreignField)
  const createBody = { ...lookup.model, $id: `${lookup.model.$id}Create`, required } as MongoModelSchema
  if (required === undefined || required.length === 0) delete (createBody as { required?: unknown }).required
  child.schemas.push(createBody)
  const store = createCollectionStore(options.db, lookup.collectionName, child.typed, { maxTimeMS: options.maxTimeMS })
  return { lookup, child, createBody, store }
}

/**
 * The six child routes of SPEC §4.4 (plus PUT) under `<item>/<prefix>`, minus those the lookup
 * disables. Children live in another collection: their writes read the parent, never update it.
 */
export function buildLookupRoutes(context: RouterContext, plan: LookupPlan, itemUrl: string, presenter: ListPresenter): RouteOptions[] {
  const { lookup, child, store } = plan
  const listUrl = `${itemUrl}/${lookup.prefix}`
  const oneUrl = `${listUrl}/:${CHILD_PARAM}`
  const deps = lookup.dependencies
  const link = lookupLink(context, lookup, CHILD_PARAM)
  const name = `${lookup.prefix} of one ${context.options.collectionName} document`
  const selectFields = fieldSelector(child.out)
  // Counts, `fields=` and cursors as on the main list; the children filter binds a cursor to its parent.
  const pageSpec = { count: store.count, selectFields, cursors: { seal: new PageCursors(context.options.cursorSecret), typed: child.typed } }
  // The children's tags are those of their collection, as a router serving it would answer them.
  const key = placeKey(context.options.etagKey, collectionPlace(context.options.db, lookup.collectionName))
  const changed = preconditionFailedResponse('If-Match names another version of the child')

  return enabledRoutes(lookup.disabled, {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetAll', READS_PARENT, childParams(context), {
        200: { type: 'array', items: ref(child.out), description: 'The children of the parent', headers: { ...countHeaders, ...nextLinkHeader } },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }), { summary: `List the ${name}`, querystring: listQuerySchema, headers: preferHeaderSchema }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const { children } = await link.parent(request)
        const raw = request.query as ListQueryString
        const query = parseClientQuery(raw, child.listSpec)
        const page = await prepareListPage(pageSpec, request, reply, { ...query, filter: allOf(children, query.filter) }, raw)
        return serveList(request, reply, page.query, store, presenter, context.streams, page.onPage)
      },
    },
    CreateOne: {
      method: 'POST',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'CreateOne', READS_PARENT, childParams(context), {
        201: { ...ref(child.out), description: 'The created child', headers: { ...locationHeader, ...etagHeader } },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not created' },
        ...preconditionFailedResponse('If-None-Match is `*` and a child with this id exists'),
      }), { summary: `Create one of the ${name}`, body: ref(plan.createBody), headers: conditionalHeaders('create') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const { value } = await link.parent(request)
        const created = await writeOrExplain(() => store.insert(link.body(request, value)), createOnly(request) ? exists : notCreated)
        sendETag(reply, created, key)
        return setLocation(request, reply, created['id']).code(201).send(created)
      },
    },
    GetOne: {
      method: 'GET',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The child', headers: etagHeader },
        ...notModifiedResponse,
        422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
      }), { summary: `Get one of the ${name}`, querystring: oneQuerySchema, headers: conditionalHeaders('read') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const fields = selectFields(request, (request.query as { fields?: string }).fields)
        const filter = link.child(request, (await link.parent(request)).children)
        const doc = filter === undefined ? undefined : await store.findOne(filter, fields)
        if (doc === undefined) throw context.notFound()
        // A projection is not the stored child: no tag (it could never pass an If-Match), no 304.
        if (fields === undefined && notModified(request, reply, doc, key)) return reply.code(304).send()
        return doc
      },
    },
    ReplaceOne: {
      method: 'PUT',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'ReplaceOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The replaced child', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not replaced' },
        ...changed,
      }), { summary: `Replace one of the ${name}`, body: ref(plan.createBody), headers: conditionalHeaders('write') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const { value, children } = await link.parent(request)
        checkBodyId(request)
        const body = link.body(request, value)
        const filter = link.child(request, children)
        if (filter === undefined) throw notReplaced()
        const unchanged = await checkIfMatch(request, key, () => store.findSnapshot(filter), notReplaced)
        const write = () => writeOrExplain(() => store.replace(filter, body, [], unchanged), notReplaced)
        const doc = await guardedWrite(unchanged, write, () => store.findOne(filter))
        if (doc === undefined) throw notReplaced()
        sendETag(reply, doc, key)
        return doc
      },
    },
    UpdateOne: {
      method: 'PATCH',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'UpdateOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The updated child', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not updated' },
        ...changed,
      }), { summary: `Update part of one of the ${name}`, body: ref(child.patch), headers: conditionalHeaders('write') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const { value, children } = await link.parent(request)
        checkBodyId(request)
        const changes = link.body(request, value)
        const filter = link.child(request, children)
        if (filter === undefined) throw notUpdated()
        const unchanged = await checkIfMatch(request, key, () => store.findSnapshot(filter), notUpdated)
        const write = () => writeOrExplain(() => store.update(filter, { set: changes }, unchanged), notUpdated)
        const doc = await guardedWrite(unchanged, write, () => store.findOne(filter))
        if (doc === undefined) throw notUpdated()
        sendETag(reply, doc, key)
        return doc
      },
    },
    DeleteOne: {
      method: 'DELETE',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'DeleteOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        204: { type: 'null', description: 'Deleted' },
        422: { ...errorRef, description: 'Child not deleted (missing, or already deleted)' },
        ...changed,
      }), { summary: `Delete one of the ${name}`, headers: conditionalHeaders('write') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const filter = link.child(request, (await link.parent(request)).children)
        if (filter === undefined) throw notDeleted()
        const unchanged = await checkIfMatch(request, key, () => store.findSnapshot(filter), notDeleted)
        if (!(await guardedWrite(unchanged, () => store.remove(filter, unchanged), () => store.findOne(filter)))) throw notDeleted()
        return reply.code(204).send()
      },
    },
  })
}

/** A body `id` may repeat the path's child id, never change it (routes/body-id.ts). */
function checkBodyId(request: FastifyRequest): void {
  bodyWithoutId(request.body as WireDoc, (request.params as Record<string, string>)[CHILD_PARAM], '_id')
}

export function withSchema<T extends { schema: Record<string, unknown> }>(route: T, extra: Record<string, unknown>): T {
  return { ...route, schema: { ...route.schema, ...extra } }
}
