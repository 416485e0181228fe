import type { RouterContext } from '../core/router-context.js'
import { SetupError } from '../errors.js'
import type { MongoModelSchema } from '../models.js'
import { checkLocalField } from '../options/check-local-field.js'
import type { CRUDLookup } from '../options/crud-lookup.js'
import type { ResolvedRouterOptions } from '../options/router-option-types.js'
import { routerRefs } from '../schema/router-refs.js'
import { nodeAt } from '../shapes/model-shape.js'
import { createCollectionStore } from '../store/collection-store.js'
import type { CollectionStore } from '../store/store.js'
import { buildChildModel, type ChildModel } from './child-model.js'

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
