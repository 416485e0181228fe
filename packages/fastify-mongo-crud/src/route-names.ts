/** The six routes of a router (and of a lookup or embed declaration), as option keys name them. */
export type RouteName = 'GetAll' | 'GetOne' | 'CreateOne' | 'ReplaceOne' | 'UpdateOne' | 'DeleteOne'

export const ROUTE_NAMES: readonly RouteName[] = ['GetAll', 'GetOne', 'CreateOne', 'ReplaceOne', 'UpdateOne', 'DeleteOne']

/**
 * The routes a router gets besides its six (`<prefix>/_batch`, `/_groups`, `/_events`), as their
 * `disable*` keys name them. They are not route names of guards: each runs the guards of the routes it
 * stands for (the writes for a batch, the list for groups and events).
 */
export type ExtraRouteName = 'Batch' | 'Groups' | 'Events'

export const EXTRA_ROUTE_NAMES: readonly ExtraRouteName[] = ['Batch', 'Groups', 'Events']

/** `disable_get_all` -> `disableGetAll`: the name a snake-case option from the Python original now has. */
export function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

/** The path segment of a list's groups (`<prefix>/_groups`, docs/groups.md): a name no document id is given. */
export const GROUPS_SEGMENT = '_groups'

/** Whether a generated route is a `_groups` route (it reads a list, and is named and documented as groups). */
export const isGroupsUrl = (url: string): boolean => url.endsWith(`/${GROUPS_SEGMENT}`)

/** The path segment of a router's change feed (`<prefix>/_events`, docs/events.md). */
export const EVENTS_SEGMENT = '_events'

/** Whether a generated route is an `_events` route (named and documented as a feed, not as the list). */
export const isEventsUrl = (url: string): boolean => url.endsWith(`/${EVENTS_SEGMENT}`)
