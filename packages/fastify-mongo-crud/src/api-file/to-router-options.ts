import { CRUDEmbed, EMBED_ROUTES } from '../options/crud-embed.js'
import { CRUDLookup } from '../options/crud-lookup.js'
import { CRUDPopulate } from '../options/crud-populate.js'
import type { CRUDRouterOptions } from '../options.js'
import type { DriverDb } from '../store/driver-db.js'
import type { RouterDeclaration } from './api-file.js'
import type { BearerAuth } from './bearer-auth.js'
import { authenticated } from './claim-checks.js'
import { SHARED_ROUTER_KEYS } from './file-router-keys.js'
import type { LoadedApiFile } from './load-api-file.js'
import { escapePointer } from './parse-json-positions.js'
import { toDependencies, toDisabled, toScope } from './to-dependencies.js'
import type { ModelCatalog } from './to-models.js'

/**
 * What a file's scope does with client filters when it does not say (`scope.filters`): they are ANDed
 * with it, so they only narrow the caller's documents and go through the filter grammar. The router
 * option's own default stays the Python original's `'ignore'`; a file says `"filters": "ignore"` for it.
 */
export const FILE_FILTERS_UNDER_SCOPE = 'and'

/** One router of the file as `app.register(CRUDRouter, options)` takes it, and where it was declared. */
export interface FileRouter {
  name: string
  pointer: string
  options: CRUDRouterOptions & { prefix: string }
}

/**
 * The file's routers as CRUDRouter options. Relations are built here, so a declaration the library
 * refuses (a SetupError) is reported at the relation's place in the file by the caller. `auth`
 * verifies the tokens of the file's `auth`: unless `auth.required` is false, every route checks one
 * first (child routes through their parent's GetOne dependencies, which they run).
 */
export function toRouterOptions({ api }: LoadedApiFile, catalog: ModelCatalog, db: DriverDb, name: string, auth?: BearerAuth): FileRouter {
  const router = api.routers[name] as RouterDeclaration
  const pointer = `/routers/${escapePointer(name)}`
  const model = catalog.input(router.model)
  const modelOut = catalog.output(router, name)
  const scope = router.scope === undefined ? undefined : toScope(router.scope, api.models[router.model]!.properties[router.scope.field]!, auth)
  const first = [...(auth !== undefined && api.auth !== undefined && api.auth.required !== false ? [authenticated(auth)] : []), ...(scope === undefined ? [] : [scope.check])]
  const { bodyLimit: _, ...defaults } = api.limits ?? {}
  const limits = { ...defaults, ...router.limits }
  const options: CRUDRouterOptions & { prefix: string } = {
    model,
    ...(modelOut === undefined ? {} : { modelOut }),
    db,
    collectionName: router.collection,
    prefix: router.prefix,
    tags: [name],
    ...sharedOptions(router),
    ...limits,
    ...toDisabled(router.disable),
    ...toDependencies(router.guards, first, auth),
    ...(scope === undefined ? {} : { filterDependency: scope.filterDependency, filtersUnderScope: router.scope?.filters ?? FILE_FILTERS_UNDER_SCOPE, clientIdsUnderScope: router.scope?.clientIds ?? 'refuse' }),
    ...(router.access === undefined ? {} : { access: router.access as unknown as NonNullable<CRUDRouterOptions['access']>, ...(auth === undefined ? {} : { accessClaims: auth.optionalClaims }) }),
    populates: (router.populates ?? []).map((populate) => {
      const target = api.routers[populate.router]!
      const targetOut = catalog.output(target, populate.router)
      return new CRUDPopulate({
        field: populate.field,
        collection: target.collection,
        model: catalog.input(target.model),
        ...(targetOut === undefined ? {} : { modelOut: targetOut }),
      })
    }),
    lookups: (router.lookups ?? []).map((lookup) => {
      const out = catalog.output(lookup, `${name}_${lookup.prefix}`)
      return new CRUDLookup({
        model: catalog.input(lookup.model),
        ...(out === undefined ? {} : { modelOut: out }),
        collectionName: lookup.collection,
        prefix: lookup.prefix,
        localField: lookup.localField ?? '_id',
        foreignField: lookup.foreignField,
        ...toDisabled(lookup.disable),
        ...toDependencies(lookup.guards, [], auth),
      })
    }),
    embeds: (router.embeds ?? []).map((embed) => {
      const out = catalog.output(embed, `${name}_${embed.name}`)
      return new CRUDEmbed({
        model: catalog.input(embed.model),
        ...(out === undefined ? {} : { modelOut: out }),
        embedName: embed.name,
        ...toDisabled(embed.disable),
        ...toDependencies(embed.guards, [], auth, EMBED_ROUTES),
      })
    }),
  }
  return { name, pointer, options }
}

/** The router options the file takes under their own names, as the file sets them (file-router-keys.ts). */
function sharedOptions(router: RouterDeclaration): Partial<CRUDRouterOptions> {
  // The file's field names are strings; the options type them after the model, which a file's model has no type for.
  return Object.fromEntries(SHARED_ROUTER_KEYS.filter((key) => router[key] !== undefined).map((key) => [key, router[key]])) as Partial<CRUDRouterOptions>
}
