import type { RouteOptions } from 'fastify'
import pluralize from 'pluralize'
import type { AppRegistry } from '../app-registry.js'
import { SetupError } from '../errors.js'
import { isEventsUrl, isGroupsUrl, ROUTE_NAMES, type RouteName } from '../route-names.js'

/**
 * How a router (or a lookup or embed under it) is named in its operationIds and summaries: a plural
 * (`users`, the collection) and a singular (`user`). Identifiers, so an operationId made of them is one too.
 */
export interface Naming {
  readonly plural: string
  readonly singular: string
}

/** `user_profiles` or `user-profiles` -> `userProfiles`: collection names and prefixes become identifiers. */
export function identifierOf(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean)
  const joined = words.map((word, index) => (index === 0 ? word : capitalize(word))).join('')
  return /^[0-9]/.test(joined) ? `_${joined}` : joined
}

/**
 * The singular of a plural identifier, by an inflection library (`movies` -> `movie`, `statuses` ->
 * `status`, `people` -> `person`, `news` -> `news`): hand-written rules got such words wrong. Only the
 * last word of a camel-cased name takes the number (`userProfiles` -> `userProfile`, `v2People` ->
 * `v2Person`); the `singular` option overrides the result.
 */
function singularOf(plural: string): string {
  const last = /(?:[A-Z]?[a-z]+|[A-Z]+)$/.exec(plural)
  if (last === null) return plural
  return plural.slice(0, last.index) + pluralize.singular(last[0])
}

export function namingOf(plural: string, singular?: string): Naming {
  return { plural, singular: singular ?? singularOf(plural) }
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
/** `usersV1` -> `users v1`: how a name reads in a sentence. */
const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()

const VERBS: Record<RouteName, string> = {
  GetAll: 'list',
  GetOne: 'get',
  CreateOne: 'create',
  ReplaceOne: 'replace',
  UpdateOne: 'update',
  DeleteOne: 'delete',
}

/**
 * The operationId of one route: `listUsers`, `getUser`, ..., and under a parent `listUserMessages`,
 * `getUserMessage`. Stable: made of names only, never of the order routes were registered in.
 */
function operationIdOf(kind: RouteName, naming: Naming, parent?: Naming): string {
  const own = kind === 'GetAll' ? naming.plural : naming.singular
  return VERBS[kind] + (parent === undefined ? capitalize(own) : capitalize(parent.singular) + capitalize(own))
}

/** One line saying what the route does, in the router's own words. */
function summaryOf(kind: RouteName, naming: Naming, parent?: Naming): string {
  const one = words(naming.singular)
  const of = parent === undefined ? '' : ` of one ${words(parent.singular)}`
  switch (kind) {
    case 'GetAll':
      return parent === undefined ? `List ${words(naming.plural)}` : `List the ${words(naming.plural)}${of}`
    case 'GetOne':
      return `Get one ${one}${of}`
    case 'CreateOne':
      return `Create one ${one}${of}`
    case 'ReplaceOne':
      return `Replace one ${one}${of}`
    case 'UpdateOne':
      return `Update part of one ${one}${of}`
    case 'DeleteOne':
      return `Delete one ${one}${of}`
  }
}

/** Which of the six routes a generated route is: its method, and whether its URL ends with an item parameter. */
function routeKindOf(route: Pick<RouteOptions, 'method' | 'url'>): RouteName {
  const item = /\/:[^/]+$/.test(route.url)
  switch (route.method) {
    case 'GET':
      return item ? 'GetOne' : 'GetAll'
    case 'POST':
      return 'CreateOne'
    case 'PUT':
      return 'ReplaceOne'
    case 'PATCH':
      return 'UpdateOne'
    default:
      return 'DeleteOne'
  }
}

/** The route with its operationId and summary, named after the router (and the parent, for a child route). */
export function withNames(route: RouteOptions, naming: Naming, parent?: Naming): RouteOptions {
  if (isGroupsUrl(route.url)) return { ...route, schema: { ...(route.schema as Record<string, unknown>), ...groupsNames(naming, parent) } }
  if (isEventsUrl(route.url)) return { ...route, schema: { ...(route.schema as Record<string, unknown>), ...eventsNames(naming) } }
  const kind = routeKindOf(route)
  const schema = { ...(route.schema as Record<string, unknown>), operationId: operationIdOf(kind, naming, parent), summary: summaryOf(kind, naming, parent) }
  return { ...route, schema }
}

/**
 * A `_groups` route's operationId and summary: `groupUsers` ("Group users"), `groupUserMessages` ("Group
 * the messages of one user"). Unique where the list's operationId is: the same names, another verb.
 */
function groupsNames(naming: Naming, parent?: Naming): { operationId: string, summary: string } {
  const operationId = `group${parent === undefined ? capitalize(naming.plural) : capitalize(parent.singular) + capitalize(naming.plural)}`
  const summary = parent === undefined ? `Group ${words(naming.plural)}` : `Group the ${words(naming.plural)} of one ${words(parent.singular)}`
  return { operationId, summary }
}

/** An `_events` route's operationId and summary: `watchUsers` ("Watch users"), unique where the list's is. */
function eventsNames(naming: Naming): { operationId: string, summary: string } {
  return { operationId: `watch${capitalize(naming.plural)}`, summary: `Watch ${words(naming.plural)}` }
}

/**
 * The router's naming, its operationIds claimed in the app: `name` when given (a clash is a setup
 * error), else the collection's name, or when another router of the app took it (two API versions of
 * one collection) the prefix's (`/api/v2/users` -> `apiV2Users`), else the collection's numbered
 * (`users2`, in registration order: give such routers a `name` for ids that never move).
 */
export function claimNaming(
  registry: AppRegistry,
  options: { name: string | undefined, singular: string | undefined, collectionName: string },
  prefix: string,
  children: readonly Naming[],
  place: string
): Naming {
  const claim = (naming: Naming) => {
    const ids = [...ROUTE_NAMES.map((kind) => operationIdOf(kind, naming)), ...children.flatMap((child) => ROUTE_NAMES.map((kind) => operationIdOf(kind, child, naming)))]
    return registry.claimOperationIds(ids, place)
  }
  if (options.name !== undefined) {
    const naming = namingOf(options.name, options.singular)
    const clash = claim(naming)
    if (clash === undefined) return naming
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter ${place}: operationId '${clash.id}' is already taken by ${clash.place}; give this router another 'name' (and 'singular')`)
  }
  const base = namingOf(identifierOf(options.collectionName), options.singular)
  const fromPrefix = identifierOf(prefix)
  // `apiV2Users` ends with the collection's name: its singular ends with the collection's singular.
  const tail = capitalize(base.plural)
  const prefixNaming = fromPrefix.endsWith(tail) ? { plural: fromPrefix, singular: fromPrefix.slice(0, -tail.length) + capitalize(base.singular) } : namingOf(fromPrefix)
  const candidates = [base, ...(fromPrefix === '' || fromPrefix === base.plural ? [] : [prefixNaming])]
  for (const naming of candidates) if (claim(naming) === undefined) return naming
  for (let n = 2; ; n++) {
    const naming = { plural: `${base.plural}${n}`, singular: `${base.singular}${n}` }
    if (claim(naming) === undefined) return naming
  }
}
