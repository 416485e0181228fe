import type { RouteOptions } from 'fastify'
import { createHandler, deleteHandler, getHandler, listHandler, writeHandler } from '../http/handlers.js'
import { listQuerySchema } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import type { RouteName } from '../route-names.js'
import {
  conditionalHeaders,
  etagHeader,
  notModifiedResponse,
  preconditionFailedResponse,
} from '../routes/conditional-request.js'
import { nextLinkHeader, } from '../routes/list-page.js'
import { locationHeader, } from '../routes/location.js'
import { oneQuerySchema } from '../routes/read.js'
import type { RouterContext } from '../routes/router-context.js'
import { countHeaders, preferHeaderSchema } from '../routes/total-count.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { routerRefs } from '../schema/router-refs.js'
import type { ArrayItems, } from '../store/store.js'
import { buildChildModel, type ChildModel, ref } from './child-model.js'
import type { CRUDEmbed } from './crud-embed.js'
import { withSchema } from './lookup-routes.js'
import { childParams, childRouteOptions, enabledRoutes, READS_PARENT, UPDATES_PARENT } from './parent.js'

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
 * The five routes of an embed (docs/http-contract.md) at `<item>/<embedName>`, minus those the embed disables, over the
 * embed's items (resources/embed-resource.ts). Every write is an update of the parent, so it passes
 * the parent's update guards too (UPDATES_PARENT).
 */
export function buildEmbedRoutes(context: RouterContext, plan: EmbedPlan, resource: Resource, itemUrl: string): RouteOptions[] {
  const { embed, child } = plan
  const listUrl = `${itemUrl}/${embed.embedName}`
  const oneUrl = `${listUrl}/:${ITEM_PARAM}`
  const deps = embed.dependencies
  const name = `${embed.embedName} of one ${context.options.collectionName} document`
  const changed = preconditionFailedResponse('If-Match names another version of the item')

  return enabledRoutes(embedDisabled(context, embed), {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetAll', READS_PARENT, childParams(context), {
        200: { type: 'array', items: ref(child.out), description: 'The embedded items', headers: { ...countHeaders, ...nextLinkHeader } },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }), { summary: `List the ${name}`, querystring: listQuerySchema, headers: preferHeaderSchema }),
      handler: listHandler(resource, context.streams),
    },
    CreateOne: {
      method: 'POST',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'CreateOne', UPDATES_PARENT, childParams(context), {
        201: { ...ref(child.out), description: 'The added item', headers: { ...locationHeader, ...etagHeader } },
        422: { ...validationErrorRef, description: 'Invalid body, the item id is taken, or the parent would exceed 16 MB' },
        ...preconditionFailedResponse('If-None-Match is `*` and an item with this id exists'),
      }), { summary: `Add one of the ${name}`, body: ref(child.model), headers: conditionalHeaders('create') }),
      handler: createHandler(resource),
    },
    GetOne: {
      method: 'GET',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetOne', READS_PARENT, childParams(context, ITEM_PARAM), {
        200: { ...ref(child.out), description: 'The item', headers: etagHeader },
        ...notModifiedResponse,
        422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
      }), { summary: `Get one of the ${name}`, querystring: oneQuerySchema, headers: conditionalHeaders('read') }),
      handler: getHandler(resource, ITEM_PARAM),
    },
    UpdateOne: {
      method: 'PATCH',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'UpdateOne', UPDATES_PARENT, childParams(context, ITEM_PARAM), {
        200: { ...ref(child.out), description: 'The updated item', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the item was not updated (missing)' },
        ...changed,
      }), { summary: `Update part of one of the ${name}`, body: ref(child.patch), headers: conditionalHeaders('write') }),
      handler: writeHandler(resource, ITEM_PARAM, 'update'),
    },
    DeleteOne: {
      method: 'DELETE',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'DeleteOne', UPDATES_PARENT, childParams(context, ITEM_PARAM), {
        204: { type: 'null', description: 'Removed' },
        422: { ...errorRef, description: 'Item not deleted (missing, or already deleted)' },
        ...changed,
      }), { summary: `Remove one of the ${name}`, headers: conditionalHeaders('write') }),
      handler: deleteHandler(resource, ITEM_PARAM),
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

