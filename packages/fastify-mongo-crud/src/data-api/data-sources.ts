import type { FastifyInstance } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import type { Endpoint } from '../dispatch/endpoint.js'
import type { MongoModelSchema } from '../models.js'

/** What the Data API needs of one router: its context (store, shapes, policy), its dispatch endpoint, its output model. */
export interface DataSource {
  /** The router's name (its `name` option, by default its collection's name). */
  readonly name: string
  readonly context: RouterContext
  readonly endpoint: Endpoint
  /** The output model (`modelOut`, or `model`): only its fields are ever answered, filtered, sorted or grouped. */
  readonly outModel: MongoModelSchema
}

/** The routers of each app, by its HTTP server (what every plugin of one app shares, as app-registry.ts keys it). */
const sources = new WeakMap<object, DataSource[]>()

/** Records a router the Data API of its app may serve (plugin.ts, once the router is built). */
export function addDataSource(fastify: FastifyInstance, source: DataSource): void {
  let list = sources.get(fastify.server)
  if (list === undefined) {
    list = []
    sources.set(fastify.server, list)
  }
  list.push(source)
}

/** The routers registered on the app of `fastify`, in registration order. */
export function dataSourcesOf(fastify: FastifyInstance): readonly DataSource[] {
  return sources.get(fastify.server) ?? []
}
