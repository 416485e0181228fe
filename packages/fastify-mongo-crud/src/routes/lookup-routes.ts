import type { RouteOptions } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { CHILD_PARAM, type LookupPlan } from '../relations/lookup-plan.js'
import { READS_PARENT } from '../relations/parent.js'
import type { Resource } from '../resources/resource.js'
import { buildChildRoutes } from './child-routes.js'

/**
 * The six child routes of a lookup (docs/http-contract.md) under `<item>/<prefix>`, minus those the
 * lookup disables, over its children (resources/lookup-resource.ts). Children live in another
 * collection: their routes pass the parent's GetOne guards, and their writes never update the parent.
 */
export function buildLookupRoutes(context: RouterContext, plan: LookupPlan, resource: Resource, itemUrl: string): RouteOptions[] {
  return buildChildRoutes(context, itemUrl, {
    resource,
    segment: plan.lookup.prefix,
    param: CHILD_PARAM,
    dependencies: plan.lookup.dependencies,
    disabled: plan.lookup.disabled,
    parentRoutes: () => READS_PARENT,
    schemas: { out: plan.child.out, create: plan.createBody, replace: plan.createBody, patch: plan.child.patch },
    words: {
      noun: 'child',
      add: 'Create',
      remove: 'Delete',
      list: 'The children of the parent',
      created: 'The created child',
      createRefused: 'Invalid body, or the child was not created',
      one: 'The child',
      replaced: 'The replaced child',
      replaceRefused: 'Invalid body, or the child was not replaced',
      updated: 'The updated child',
      updateRefused: 'Invalid body, or the child was not updated',
      deleted: 'Deleted',
      deleteRefused: 'Child not deleted (missing, or already deleted)',
    },
  })
}
