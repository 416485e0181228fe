import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { invalidBody, notCreated, notDeleted, notUpdated } from '../errors.js'
import type { Filter } from '../query/filter.js'
import type { ListQueryString } from '../query/list-query.js'
import { itemListQuerySchema } from '../query/list-query.js'
import { parseClientQuery } from '../query/parse-client-query.js'
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
import { locationHeader, setLocation } from '../routes/location.js'
import type { RouterContext } from '../routes/router-context.js'
import { type ListPresenter, type ListSource, serveList } from '../routes/serve-list.js'
import { answerTotalCount, countHeaders, preferHeaderSchema } from '../routes/total-count.js'
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

  return enabledRoutes(embed.disabled, {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetAll', READS_PARENT, childParams(context), {
        200: { type: 'array', items: ref(child.out), description: 'The embedded items', headers: countHeaders },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }), { summary: `List the ${name}`, querystring: itemListQuerySchema, headers: preferHeaderSchema }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const query = parseClientQuery(request.query as ListQueryString, child.listSpec)
        const source = itemsOfParent(items, await parentFilter(context, request), () => context.notFound())
        // The items live in one parent document (16 MB at most): counting them reads that one document.
        await answerTotalCount(request, reply, query.filter, (filter) => countAll(source.list({ filter, skip: 0 })))
        return serveList(request, reply, query, source, presenter, context.streams)
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
      }), { summary: `Get one of the ${name}`, headers: conditionalHeaders('read') }),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const found = await items.get(await parentFilter(context, request), itemId(request))
        if (found?.item === undefined) throw context.notFound()
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
        const { id, ...changes } = request.body as WireDoc
        if (id !== undefined && id !== null && String(id).toLowerCase() !== itemId(request).toLowerCase()) {
          throw invalidBody([{ loc: ['body', 'id'], msg: 'The id in the body must match the id in the path', type: 'id_mismatch' }])
        }
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
 * The items of one parent as a list source. An empty list asks whether the parent exists, so a
 * missing parent is a 404 (before the status of a streamed list goes out) and never an empty array.
 */
function itemsOfParent(items: ArrayItems, parent: Filter, notFound: () => Error): ListSource {
  const checkParent = async () => {
    if (!(await items.hasParent(parent))) throw notFound()
  }
  return {
    async find(query) {
      const page = await items.find(parent, query)
      if (page.length === 0) await checkParent()
      return page
    },
    async *list(query) {
      let empty = true
      for await (const item of items.list(parent, query)) {
        empty = false
        yield item
      }
      if (empty) await checkParent()
    },
  }
}

async function countAll(items: AsyncIterable<unknown>): Promise<number> {
  let count = 0
  for await (const _ of items) count++
  return count
}
