import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { notCreated, notDeleted, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import type { ListQueryString } from '../query/list-query.js'
import { type ListQuery, listQuerySchema } from '../query/list-query.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import type { RouteName } from '../route-names.js'
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
import { nextLinkHeader, prepareListPage } from '../routes/list-page.js'
import { locationHeader, setLocation } from '../routes/location.js'
import { oneQuerySchema } from '../routes/read.js'
import type { RouterContext } from '../routes/router-context.js'
import { type ListPresenter, type ListSource, serveList } from '../routes/serve-list.js'
import { countHeaders, preferHeaderSchema } from '../routes/total-count.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { routerRefs } from '../schema/router-refs.js'
import type { ArrayItems, WireDoc } from '../store/store.js'
import { buildChildModel, type ChildModel, ref } from './child-model.js'
import type { CRUDEmbed } from './crud-embed.js'
import { withSchema } from './lookup-routes.js'
import { childParams, childRouteOptions, enabledRoutes, parentFilter, READS_PARENT, UPDATES_PARENT } from './parent.js'

const ITEM_PARAM = 'embed_id'

export interface EmbedPlan {
  readonly embed: CRUDEmbed
  readonly child: ChildModel
  readonly items: ArrayItems
}

export function planEmbed(embed: CRUDEmbed, context: RouterContext): EmbedPlan {
  const child = buildChildModel(embed.model, embed.modelOut, context.listSpec, routerRefs(context.options))
  return { embed, child, items: context.store.arrayItems(embed.embedName, child.typed) }
}

/**
 * The five routes of SPEC §4.5 at `<item>/<embedName>`, minus those the embed disables. Every write
 * is a single atomic update of the parent, so it passes the parent's update guards too
 * (UPDATES_PARENT); when it matches nothing, a second read tells a missing parent (not found) from a
 * missing or duplicate item (the write's own 422).
 */
export function buildEmbedRoutes(context: RouterContext, plan: EmbedPlan, itemUrl: string, presenter: ListPresenter): RouteOptions[] {
  const { embed, child, items } = plan
  const listUrl = `${itemUrl}/${embed.embedName}`
  const oneUrl = `${listUrl}/:${ITEM_PARAM}`
  const deps = embed.dependencies
  const itemId = (request: FastifyRequest) => (request.params as Record<string, string>)[ITEM_PARAM] ?? ''
  const name = `${embed.embedName} of one ${context.options.collectionName} document`
  /** Tags bound to the array and the parent of the request (routes/etag.ts). */
  const keyOf = (request: FastifyRequest) => context.itemEtagKey(request, embed.embedName)
  const changed = preconditionFailedResponse('If-Match names another version of the item')
  // `fields=` and page cursors as on the main list (routes/list-page.ts); counts read the one parent.
  const pageSpec = { selectFields: fieldSelector(child.out), cursors: { seal: new PageCursors(context.options.cursorSecret), typed: child.typed } }
  /** The item as stored, for `If-Match` (a missing parent is not found; a missing item, undefined). */
  const snapshot = (request: FastifyRequest, filter: Filter) => async () => {
    const found = await items.snapshot(filter, itemId(request))
    if (found === undefined) throw context.notFound()
    return found.item
  }
  const stillThere = (request: FastifyRequest, filter: Filter) => async () => (await items.get(filter, itemId(request)))?.item

  async function explainMiss(request: FastifyRequest, refused: () => Error): Promise<never> {
    const parent = await context.store.findOne(await parentFilter(context, request))
    throw parent === undefined ? context.notFound() : refused()
  }

  return enabledRoutes(embedDisabled(context, embed), {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetAll', READS_PARENT, childParams(context), {
        200: { type: 'array', items: ref(child.out), description: 'The embedded items', headers: { ...countHeaders, ...nextLinkHeader } },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }), { summary: `List the ${name}`, querystring: listQuerySchema, headers: preferHeaderSchema }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const raw = request.query as ListQueryString
        const query = parseClientQuery(raw, child.listSpec)
        const parent = await parentFilter(context, request)
        const source = itemsOfParent(items, parent, () => context.notFound())
        // The items live in one parent document (16 MB at most): counting them reads that one document.
        const count = (filter: Filter | undefined) => countAll(source.list({ filter, skip: 0 }))
        const page = await prepareListPage({ ...pageSpec, count }, request, reply, query, raw, parent)
        return serveList(request, reply, page.query, source, presenter, context.streams, page.onPage)
      },
    },
    CreateOne: {
      method: 'POST',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'CreateOne', UPDATES_PARENT, childParams(context), {
        201: { ...ref(child.out), description: 'The added item', headers: { ...locationHeader, ...etagHeader } },
        422: { ...validationErrorRef, description: 'Invalid body, the item id is taken, or the parent would exceed 16 MB' },
        ...preconditionFailedResponse('If-None-Match is `*` and an item with this id exists'),
      }), { summary: `Add one of the ${name}`, body: ref(child.model), headers: conditionalHeaders('create') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const filter = await parentFilter(context, request)
        const created = await writeOrExplain(() => items.push(filter, request.body as WireDoc), notCreated)
        if (created === undefined) return explainMiss(request, createOnly(request) ? exists : notCreated)
        sendETag(reply, created, keyOf(request))
        return setLocation(request, reply, created['id']).code(201).send(created)
      },
    },
    GetOne: {
      method: 'GET',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetOne', READS_PARENT, childParams(context, ITEM_PARAM), {
        200: { ...ref(child.out), description: 'The item', headers: etagHeader },
        ...notModifiedResponse,
        422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
      }), { summary: `Get one of the ${name}`, querystring: oneQuerySchema, headers: conditionalHeaders('read') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const fields = pageSpec.selectFields(request, (request.query as { fields?: string }).fields)
        const found = await items.get(await parentFilter(context, request), itemId(request))
        if (found?.item === undefined) throw context.notFound()
        // A projection is not the stored item: no tag (it could never pass an If-Match), no 304.
        if (fields !== undefined) return selectOf(found.item, fields)
        if (notModified(request, reply, found.item, keyOf(request))) return reply.code(304).send()
        return found.item
      },
    },
    UpdateOne: {
      method: 'PATCH',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'UpdateOne', UPDATES_PARENT, childParams(context, ITEM_PARAM), {
        200: { ...ref(child.out), description: 'The updated item', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the item was not updated (missing)' },
        ...changed,
      }), { summary: `Update part of one of the ${name}`, body: ref(child.patch), headers: conditionalHeaders('write') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const changes = bodyWithoutId(request.body as WireDoc, itemId(request), '_id')
        const filter = await parentFilter(context, request)
        const unchanged = await checkIfMatch(request, keyOf(request), snapshot(request, filter), notUpdated)
        const write = () => writeOrExplain(() => items.update(filter, itemId(request), changes, unchanged), notUpdated)
        const updated = await guardedWrite(unchanged, write, stillThere(request, filter))
        if (updated === undefined) return explainMiss(request, notUpdated)
        sendETag(reply, updated, keyOf(request))
        return updated
      },
    },
    DeleteOne: {
      method: 'DELETE',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'DeleteOne', UPDATES_PARENT, childParams(context, ITEM_PARAM), {
        204: { type: 'null', description: 'Removed' },
        422: { ...errorRef, description: 'Item not deleted (missing, or already deleted)' },
        ...changed,
      }), { summary: `Remove one of the ${name}`, headers: conditionalHeaders('write') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const filter = await parentFilter(context, request)
        const unchanged = await checkIfMatch(request, keyOf(request), snapshot(request, filter), notDeleted)
        const pull = () => items.pull(filter, itemId(request), unchanged)
        if (!(await guardedWrite(unchanged, pull, stillThere(request, filter)))) return explainMiss(request, notDeleted)
        return reply.code(204).send()
      },
    },
  })
}

/**
 * An item write is an update of its parent (one atomic update of its array): where the parent router
 * disables its PATCH (`disableUpdateOne`), the item writes are left out too, or they would be a way
 * around it.
 */
function embedDisabled(context: RouterContext, embed: CRUDEmbed): ReadonlySet<RouteName> {
  if (!context.options.disabled.has('UpdateOne')) return embed.disabled
  return new Set<RouteName>([...embed.disabled, 'CreateOne', 'UpdateOne', 'DeleteOne'])
}

/**
 * The items of one parent as a list source. An empty list asks whether the parent exists, so a
 * missing parent is a 404 (before the status of a streamed list goes out) and never an empty array.
 */
function itemsOfParent(items: ArrayItems, parent: Filter, notFound: () => Error): ListSource {
  const checkParent = async () => {
    if (!(await items.hasParent(parent))) throw notFound()
  }
  // The parent is read whole (one document); `fields=` keeps the fields it names of each item.
  const pick = (query: ListQuery) => (item: WireDoc) => (query.fields === undefined ? item : selectOf(item, query.fields))
  return {
    async find(query) {
      const page = await items.find(parent, query)
      if (page.length === 0) await checkParent()
      return page.map(pick(query))
    },
    async *list(query) {
      let empty = true
      const shown = pick(query)
      for await (const item of items.list(parent, query)) {
        empty = false
        yield shown(item)
      }
      if (empty) await checkParent()
    },
  }
}

function selectOf(item: WireDoc, fields: readonly string[]): WireDoc {
  const selected: WireDoc = {}
  for (const field of fields) if (Object.hasOwn(item, field)) selected[field] = item[field]
  return selected
}

async function countAll(items: AsyncIterable<unknown>): Promise<number> {
  let count = 0
  for await (const _ of items) count++
  return count
}
