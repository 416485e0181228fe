// The router's options live in options/: their one declaration (router-option-schemas.ts), the types
// derived from it and typed after the models (router-option-types.ts), and their resolution at
// registration (resolve-router-options.ts). Re-exported here for the files that import them from here,
// with Dependency and RouteName (homes: dependency.ts and route-names.ts).
export type { Dependency } from './dependency.js'
export { DEFAULT_FILTER_LIMITS, resolveRouterOptions } from './options/resolve-router-options.js'
export type { CRUDRouterOptions, FieldPath, IdentifierField, IndexField, ResolvedIndex, ResolvedRouterOptions, RouterIndex } from './options/router-option-types.js'
export { ROUTE_NAMES, type RouteName } from './route-names.js'
