import type { RouteOptions } from 'fastify'
import { conditionalHeaders, etagHeader, notModifiedResponse, preconditionFailedResponse } from '../core/conditional-request.js'
import { nextLinkHeader } from '../core/list-page.js'
import { locationHeader } from '../core/location.js'
import type { RouterContext } from '../core/router-context.js'
import { countHeaders, preferHeaderSchema } from '../core/total-count.js'
import { createHandler, deleteHandler, getHandler, groupsHandler, listHandler, patchHandler, replaceHandler } from '../http/handlers.js'
import type { MongoModelSchema } from '../models.js'
import type { DependencyOptions } from '../options/relation-options.js'
import type { RouteName } from '../options.js'
import { patchBodySchema } from '../patch/patch-media-types.js'
import { listQuerySchema } from '../query/list-query.js'
import { ref } from '../relations/child-model.js'
import { childParams, childRouteOptions, enabledRoutes } from '../relations/parent.js'
import type { Resource } from '../resources/resource.js'
import { GROUPS_SEGMENT } from '../route-names.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import { requestBody } from '../schema/request-body.js'
import { groupsRouteSchema } from './groups-route.js'
import { oneQuerySchema } from './read.js'

/** What the child routes of one lookup or embed are made of; what differs between the two kinds is data. */
interface ChildRouteSpec {
  readonly resource: Resource
  /** The path segment under the parent's item URL (the lookup's prefix, the embed's name). */
  readonly segment: string
  /** The path parameter of one child. */
  readonly param: string
  readonly dependencies: Required<DependencyOptions>
  readonly disabled: ReadonlySet<RouteName>
  /** The parent routes whose guards a child route passes first (relations/parent.ts). */
  readonly parentRoutes: (name: RouteName) => readonly RouteName[]
  readonly schemas: { readonly out: MongoModelSchema, readonly create: MongoModelSchema, readonly replace?: MongoModelSchema | undefined, readonly patch: MongoModelSchema }
  /** The words of the OpenAPI document: summaries' verbs and each answer's description. */
  readonly words: Readonly<Record<'list' | 'created' | 'createRefused' | 'one' | 'replaced' | 'replaceRefused' | 'updated' | 'updateRefused' | 'deleted' | 'deleteRefused' | 'noun' | 'add' | 'remove', string>>
}

/** The routes of a lookup's children or an embed's items, minus those disabled, over their resource. */
export function buildChildRoutes(context: RouterContext, itemUrl: string, spec: ChildRouteSpec): RouteOptions[] {
  const { resource, param, words } = spec
  const listUrl = `${itemUrl}/${spec.segment}`
  const oneUrl = `${listUrl}/:${param}`
  const name = `${spec.segment} of one ${context.options.collectionName} document`
  const changed = preconditionFailedResponse(`If-Match names another version of the ${words.noun}`)
  const options = (route: RouteName, own: boolean, responses: Record<number, object>, extra: Record<string, unknown>) => {
    const base = childRouteOptions(context, spec.dependencies, route, spec.parentRoutes(route), childParams(context, own ? param : undefined), responses)
    return { ...base, schema: { ...base.schema, ...extra } }
  }
  const out = ref(spec.schemas.out)
  const routes = enabledRoutes(spec.disabled, {
    GetAll: {
      method: 'GET',
      url: listUrl,
      ...options('GetAll', false, {
        200: { type: 'array', items: out, description: words.list, headers: { ...countHeaders, ...nextLinkHeader } },
        422: { ...validationErrorRef, description: 'Invalid query parameters' },
      }, { summary: `List the ${name}`, querystring: listQuerySchema, headers: preferHeaderSchema }),
      handler: listHandler(resource, context.streams),
    },
    CreateOne: {
      method: 'POST',
      url: listUrl,
      ...options('CreateOne', false, {
        201: { ...out, description: words.created, headers: { ...locationHeader, ...etagHeader } },
        422: { ...validationErrorRef, description: words.createRefused },
        ...preconditionFailedResponse(`If-None-Match is \`*\` and ${words.noun === 'item' ? 'an' : 'a'} ${words.noun} with this id exists`),
      }, { summary: `${words.add} one of the ${name}`, body: requestBody(spec.schemas.create), headers: conditionalHeaders('create') }),
      handler: createHandler(resource),
    },
    GetOne: {
      method: 'GET',
      url: oneUrl,
      ...options('GetOne', true, {
        200: { ...out, description: words.one, headers: etagHeader },
        ...notModifiedResponse,
        422: { ...validationErrorRef, description: 'Invalid query parameters (fields)' },
      }, { summary: `Get one of the ${name}`, querystring: oneQuerySchema, headers: conditionalHeaders('read') }),
      handler: getHandler(resource, param),
    },
    ...(spec.schemas.replace === undefined
      ? {}
      : {
          ReplaceOne: {
            method: 'PUT',
            url: oneUrl,
            ...options('ReplaceOne', true, {
              200: { ...out, description: words.replaced, headers: etagHeader },
              422: { ...validationErrorRef, description: words.replaceRefused },
              ...changed,
            }, { summary: `Replace one of the ${name}`, body: requestBody(spec.schemas.replace), headers: conditionalHeaders('write') }),
            handler: replaceHandler(resource, param),
          },
        }),
    UpdateOne: {
      method: 'PATCH',
      url: oneUrl,
      ...options('UpdateOne', true, {
        200: { ...out, description: words.updated, headers: etagHeader },
        422: { ...validationErrorRef, description: words.updateRefused },
        ...changed,
      }, { summary: `Update part of one of the ${name}`, body: patchBodySchema(ref(spec.schemas.patch)), headers: conditionalHeaders('write') }),
      handler: patchHandler(resource, param),
    },
    DeleteOne: {
      method: 'DELETE',
      url: oneUrl,
      ...options('DeleteOne', true, {
        204: { type: 'null', description: words.deleted },
        422: { ...errorRef, description: words.deleteRefused },
        ...changed,
      }, { summary: `${words.remove} one of the ${name}`, headers: conditionalHeaders('write') }),
      handler: deleteHandler(resource, param),
    },
  })
  // `<list>/_groups` reads the list: it goes with it, behind the same guards (docs/groups.md).
  const groups = groupsRouteSchema(resource.groupFields, context.options, false)
  return spec.disabled.has('GetAll') ? routes : [...routes, { method: 'GET', url: `${listUrl}/${GROUPS_SEGMENT}`, ...options('GetAll', false, groups.responses, groups.extra), handler: groupsHandler(resource) }]
}
