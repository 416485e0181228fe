import type { RouteOptions } from 'fastify'
import { SetupError } from '../errors.js'
import { createHandler, deleteHandler, getHandler, listHandler, writeHandler } from '../http/handlers.js'
import type { MongoModelSchema } from '../models.js'
import type { ResolvedRouterOptions } from '../options.js'
import { listQuerySchema } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
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
import { nodeAt } from '../schema/model-shape.js'
import { routerRefs } from '../schema/router-refs.js'
import { createCollectionStore } from '../store/collection-store.js'
import type { CollectionStore, } from '../store/store.js'
import { checkLocalField } from './check-local-field.js'
import { buildChildModel, type ChildModel, ref } from './child-model.js'
import type { CRUDLookup } from './crud-lookup.js'
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
 * The six child routes of a lookup (docs/http-contract.md) under `<item>/<prefix>`, minus those the lookup
 * disables. Children live in another collection: their writes read the parent, never update it.
 */
export function buildLookupRoutes(context: RouterContext, plan: LookupPlan, resource: Resource, itemUrl: string): RouteOptions[] {
  const { lookup, child } = plan
  const listUrl = `${itemUrl}/${lookup.prefix}`
  const oneUrl = `${listUrl}/:${CHILD_PARAM}`
  const deps = lookup.dependencies
  const name = `${lookup.prefix} of one ${context.options.collectionName} document`
  const changed = preconditionFailedResponse('If-Match names another version of the child')

  return enabledRoutes(lookup.disabled, {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetAll', READS_PARENT, childParams(context), {
        200: { type: 'array', items: ref(child.out), description: 'The children of the parent', headers: { ...countHeaders, ...nextLinkHeader } },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }), { summary: `List the ${name}`, querystring: listQuerySchema, headers: preferHeaderSchema }),
      handler: listHandler(resource, context.streams),
    },
    CreateOne: {
      method: 'POST',
      url: listUrl,
      ...withSchema(childRouteOptions(context, deps, 'CreateOne', READS_PARENT, childParams(context), {
        201: { ...ref(child.out), description: 'The created child', headers: { ...locationHeader, ...etagHeader } },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not created' },
        ...preconditionFailedResponse('If-None-Match is `*` and a child with this id exists'),
      }), { summary: `Create one of the ${name}`, body: ref(plan.createBody), headers: conditionalHeaders('create') }),
      handler: createHandler(resource),
    },
    GetOne: {
      method: 'GET',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'GetOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The child', headers: etagHeader },
        ...notModifiedResponse,
        422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
      }), { summary: `Get one of the ${name}`, querystring: oneQuerySchema, headers: conditionalHeaders('read') }),
      handler: getHandler(resource, CHILD_PARAM),
    },
    ReplaceOne: {
      method: 'PUT',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'ReplaceOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The replaced child', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not replaced' },
        ...changed,
      }), { summary: `Replace one of the ${name}`, body: ref(plan.createBody), headers: conditionalHeaders('write') }),
      handler: writeHandler(resource, CHILD_PARAM, 'replace'),
    },
    UpdateOne: {
      method: 'PATCH',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'UpdateOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        200: { ...ref(child.out), description: 'The updated child', headers: etagHeader },
        422: { ...validationErrorRef, description: 'Invalid body, or the child was not updated' },
        ...changed,
      }), { summary: `Update part of one of the ${name}`, body: ref(child.patch), headers: conditionalHeaders('write') }),
      handler: writeHandler(resource, CHILD_PARAM, 'update'),
    },
    DeleteOne: {
      method: 'DELETE',
      url: oneUrl,
      ...withSchema(childRouteOptions(context, deps, 'DeleteOne', READS_PARENT, childParams(context, CHILD_PARAM), {
        204: { type: 'null', description: 'Deleted' },
        422: { ...errorRef, description: 'Child not deleted (missing, or already deleted)' },
        ...changed,
      }), { summary: `Delete one of the ${name}`, headers: conditionalHeaders('write') }),
      handler: deleteHandler(resource, CHILD_PARAM),
    },
  })
}

export function withSchema<T extends { schema: Record<string, unknown> }>(route: T, extra: Record<string, unknown>): T {
  return { ...route, schema: { ...route.schema, ...extra } }
}
