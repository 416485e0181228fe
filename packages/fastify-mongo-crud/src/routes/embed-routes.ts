import type { RouteOptions } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import type { CRUDEmbed } from '../options/crud-embed.js'
import type { EmbedPlan } from '../relations/embed-plan.js'
import { READS_PARENT, UPDATES_PARENT } from '../relations/parent.js'
import type { Resource } from '../resources/resource.js'
import type { RouteName } from '../route-names.js'
import { buildChildRoutes } from './child-routes.js'

const ITEM_PARAM = 'embed_id'

/**
 * The five routes of an embed (docs/http-contract.md) at `<item>/<embedName>`, minus those the embed
 * disables, over its items (resources/embed-resource.ts). Every write is an update of the parent, so
 * it passes the parent's update guards too (UPDATES_PARENT).
 */
export function buildEmbedRoutes(context: RouterContext, plan: EmbedPlan, resource: Resource, itemUrl: string): RouteOptions[] {
  return buildChildRoutes(context, itemUrl, {
    resource,
    segment: plan.embed.embedName,
    param: ITEM_PARAM,
    dependencies: plan.embed.dependencies,
    disabled: embedDisabled(context, plan.embed),
    parentRoutes: (name) => (name === 'GetAll' || name === 'GetOne' ? READS_PARENT : UPDATES_PARENT),
    schemas: { out: plan.child.out, create: plan.child.model, patch: plan.child.patch },
    words: {
      noun: 'item',
      add: 'Add',
      remove: 'Remove',
      list: 'The embedded items',
      created: 'The added item',
      createRefused: 'Invalid body, the item id is taken, or the parent would exceed 16 MB',
      one: 'The item',
      replaced: '',
      replaceRefused: '',
      updated: 'The updated item',
      updateRefused: 'Invalid body, or the item was not updated (missing)',
      deleted: 'Removed',
      deleteRefused: 'Item not deleted (missing, or already deleted)',
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

