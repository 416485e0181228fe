import { didYouMean } from '../did-you-mean.js'
import { SetupError } from '../errors.js'
import { isRecord } from '../is-record.js'
import { routerRefs } from '../schema/router-refs.js'
import { buildShape, type ShapeNode } from '../shapes/model-shape.js'
import { type CollectionContext, collectionContext } from '../store/collection-context.js'
import { databaseName } from '../store/driver-db.js'
import { invalidParameter, missingParameter } from './data-api-error.js'
import type { ResolvedDataApiOptions } from './data-api-options.js'
import type { DataSource } from './data-sources.js'
import { type Hint, hintsOf } from './type-hints.js'

/** One collection the endpoint serves, through the router that serves it, with what its reads need, built once. */
export interface ServedCollection {
  readonly source: DataSource
  readonly database: string
  readonly name: string
  /** The output model's shape: what the caller may ever see (`_id` for the identifier). */
  readonly shown: ShapeNode
  /** Which BSON types the model's values stand for (type-hints.ts), read from the input model. */
  readonly hints: Hint
  /** The collection as the driver reads it, BSON types kept; calls carry a transaction's session. */
  readonly raw: CollectionContext
}

/** The collections the endpoint serves, by name, and how a request names one. */
export interface ServedCollections {
  /** The collection a body names (`dataSource`, `database`, `collection`); 400 for any other. */
  resolve(body: Record<string, unknown>, action: string): ServedCollection
  /** A collection by name, for `$lookup`'s `from` (undefined when not served). */
  byName(name: string): ServedCollection | undefined
}

/**
 * The served collections of `sources` (the routers `routers` names, else all): each collection is
 * reached through one router, its model and its policy. Two routers of one collection (two API versions)
 * must be told apart by `routers`: a request naming the collection would otherwise not know which policy
 * applies. A router the endpoint cannot name a database for (a handle without a name) needs `database`.
 */
export function servedCollections(sources: readonly DataSource[], options: ResolvedDataApiOptions): ServedCollections {
  const chosen = chooseSources(sources, options.routers)
  const byName = new Map<string, ServedCollection>()
  for (const source of chosen) {
    const { options: router } = source.context
    const taken = byName.get(router.collectionName)
    if (taken !== undefined) {
      throw new SetupError('FMC_ERR_OPTIONS_INVALID', `DataAPI: the routers '${taken.source.name}' and '${source.name}' both serve the collection '${router.collectionName}': name one of them in 'routers'`)
    }
    const database = options.database ?? databaseName(router.db)
    if (database === undefined) throw new SetupError('FMC_ERR_OPTIONS_INVALID', `DataAPI: the database of the router '${source.name}' has no name: give 'database'`)
    byName.set(router.collectionName, {
      source,
      database,
      name: router.collectionName,
      shown: buildShape(source.outModel, routerRefs(router)),
      hints: hintsOf(router.model, routerRefs(router)),
      raw: collectionContext(router.db, router.collectionName, source.context.typed, { maxTimeMS: router.maxTimeMS }),
    })
  }
  return {
    resolve(body, action) {
      const dataSource = body['dataSource']
      if (dataSource !== undefined && dataSource !== options.dataSource) {
        throw invalidParameter(`no data source ${JSON.stringify(dataSource)}: this endpoint serves '${options.dataSource}'`)
      }
      const database = body['database']
      const collection = body['collection']
      if (database === undefined) throw missingParameter('database', action)
      if (collection === undefined) throw missingParameter('collection', action)
      if (typeof database !== 'string' || typeof collection !== 'string') throw invalidParameter("'database' and 'collection' must be strings")
      const served = byName.get(collection)
      // The same answer for a database and for a collection no router serves: a request learns nothing of what exists.
      if (served === undefined || served.database !== database) throw invalidParameter(`no rule exists for namespace '${database}.${collection}'`)
      return served
    },
    byName: (name) => byName.get(name),
  }
}

function chooseSources(sources: readonly DataSource[], routers: readonly string[] | undefined): readonly DataSource[] {
  if (routers === undefined) return sources
  const names = sources.map((source) => source.name)
  return routers.map((name) => {
    const found = sources.find((source) => source.name === name)
    if (found === undefined) {
      throw new SetupError('FMC_ERR_OPTIONS_INVALID', `DataAPI: 'routers' names '${name}', which is no router of this app (routers: ${names.join(', ') || 'none'})${didYouMean(name, names)}`)
    }
    return found
  })
}

/** The body as an object, or 400. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw invalidParameter('the body must be a JSON object naming dataSource, database and collection')
  return body
}
