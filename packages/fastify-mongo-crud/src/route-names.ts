/** The six routes of a router (and of a lookup or embed declaration), as option keys name them. */
export type RouteName = 'GetAll' | 'GetOne' | 'CreateOne' | 'ReplaceOne' | 'UpdateOne' | 'DeleteOne'

export const ROUTE_NAMES: readonly RouteName[] = ['GetAll', 'GetOne', 'CreateOne', 'ReplaceOne', 'UpdateOne', 'DeleteOne']

/** `disable_get_all` -> `disableGetAll`: the name a snake-case option from the Python original now has. */
export function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}
