import type { RouteOptions } from 'fastify'
import { SetupError } from '../errors.js'
import type { MongoModelSchema } from '../models.js'
import type { ResolvedRouterOptions } from '../options.js'
import type { Resource } from '../resources/resource.js'
import type { RouterContext } from '../routes/router-context.js'
import { nodeAt } from '../schema/model-shape.js'
import { routerRefs } from '../schema/router-refs.js'
import { createCollectionStore } from '../store/collection-store.js'
import type { CollectionStore, } from '../store/store.js'
import { checkLocalField } from './check-local-field.js'
import { buildChildModel, type ChildModel, } from './child-model.js'
import { buildChildRoutes } from './child-routes.js'
import type { CRUDLookup } from './crud-lookup.js'
import { READS_PARENT } from './parent.js'

export const CHILD_PARAM = 'child_id'

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
