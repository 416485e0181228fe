import type { RouteOptions } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { unservedSegmentRoutes } from '../core/unserved-segments.js'
import type { RouteName } from '../options.js'
import type { Resource } from '../resources/resource.js'
import { buildCreateRoute } from './create.js'
import { buildEventsRoute } from './events-route.js'
import { buildGroupsRoute } from './groups-route.js'
import { buildListRoute } from './list.js'
import { buildReadRoute } from './read.js'
import { buildRemoveRoute } from './remove.js'
import { buildReplaceRoute } from './replace.js'
import { buildUpdateRoute } from './update.js'

type RouteBuilder = (context: RouterContext, resource: Resource, url: string) => RouteOptions

/** The six routes of the router's own collection, each at its URL, in the order OpenAPI lists them. */
const MAIN_ROUTES: ReadonlyArray<[RouteName, RouteBuilder, 'list' | 'item']> = [
  ['GetAll', buildListRoute, 'list'],
  ['CreateOne', buildCreateRoute, 'list'],
  ['GetOne', buildReadRoute, 'item'],
  ['ReplaceOne', buildReplaceRoute, 'item'],
  ['UpdateOne', buildUpdateRoute, 'item'],
  ['DeleteOne', buildRemoveRoute, 'item'],
]

/** The routes the router's `disable*` keys leave, over the collection's resource (its `_batch` apart: plugin.ts). */
export function buildMainRoutes(context: RouterContext, resource: Resource, prefix: string): RouteOptions[] {
  // `''` under a prefix serves `/users` exactly; without a prefix the list lives at `/`.
  const urls = { list: prefix === '' ? '/' : '', item: itemUrl(context) }
  const { disabled, disabledExtras } = context.options
  const routes = MAIN_ROUTES.filter(([name]) => !disabled.has(name)).map(([, build, url]) => build(context, resource, urls[url]))
  // `<prefix>/_groups` and `<prefix>/_events` read the list: they go with it (docs/groups.md, docs/events.md),
  // unless their own `disable*` key leaves them out; where they are not served, their paths answer 404.
  const listed = !disabled.has('GetAll')
  if (listed && !disabledExtras.has('Groups')) routes.push(buildGroupsRoute(context, resource))
  if (listed && !disabledExtras.has('Events')) routes.push(buildEventsRoute(context, resource))
  return [...routes, ...unservedSegmentRoutes(context.options)]
}

/** The URL of one document, under which child routes live too. */
export function itemUrl(context: RouterContext): string {
  return `/:${context.itemParam}`
}
