import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import type { Caller } from './core/router-context.js'
import { SetupError } from './errors.js'
import type { MongoModelSchema } from './models.js'
import { databaseName } from './store/driver-db.js'
import type { WireDoc } from './store/store.js'

/** How a router reads the documents of ids a populate asks it for, as the caller may see them (relations/populate-reader.ts). */
export interface PopulateReader {
  read(ids: readonly string[], caller: Caller): Promise<WireDoc[]>
  /**
   * What it answers depends on the caller (the router has a row scope or GetOne dependencies): the ids
   * a reference to its documents holds may then not be named by a client's filters, sort or groups.
   */
  readonly dependsOnCaller: boolean
}

/**
 * What every CRUDRouter of one app knows about the others. Routers are encapsulated plugins, so the
 * registry is keyed on what all their contexts share: the app's HTTP server.
 */
export interface AppRegistry {
  /** Checks and records a model name; two different models with one name are a setup error. */
  addModel(schema: TSchema, place: string): void
  /** Records a router serving `collectionName` of `db`, with its output model if any. */
  addRouter(db: object, collectionName: string, modelOut: MongoModelSchema | undefined, place: string): void
  /** Records how a router serving `collectionName` of `db` reads documents for another router's populate. */
  addReader(db: object, collectionName: string, reader: PopulateReader): void
  /** The readers of every router of the app serving `collectionName` of `db`. */
  readersFor(db: object, collectionName: string): readonly PopulateReader[]
  /** The output model of the first router of the app serving `collectionName` of `db` with one. */
  modelOutFor(db: object, collectionName: string): { modelOut: MongoModelSchema, place: string } | undefined
  /** Records a router's operationIds, unless one is taken: then answers where, and records nothing. */
  claimOperationIds(ids: readonly string[], place: string): { id: string, place: string } | undefined
  /** Records the service of the router named `name` (router names are unique: their operationIds are). */
  addService(name: string, service: unknown): void
  /** The service of the router named `name`, and the names known (for an error naming them). */
  service(name: string): { found: unknown, names: string[] }
}

const registries = new WeakMap<object, AppRegistry>()

export function appRegistry(fastify: FastifyInstance): AppRegistry {
  const key = fastify.server
  let registry = registries.get(key)
  if (registry === undefined) {
    registry = createRegistry()
    registries.set(key, registry)
  }
  return registry
}

function createRegistry(): AppRegistry {
  const models = new Map<string, { schema: TSchema, place: string }>()
  const routers: Array<{ db: object | string, collectionName: string, modelOut: MongoModelSchema, place: string }> = []
  const operationIds = new Map<string, string>()
  const services = new Map<string, unknown>()
  const readers: Array<{ db: object | string, collectionName: string, reader: PopulateReader }> = []
  return {
    addReader(db, collectionName, reader) {
      readers.push({ db: databaseOf(db), collectionName, reader })
    },
    readersFor(db, collectionName) {
      const database = databaseOf(db)
      return readers.filter((entry) => entry.db === database && entry.collectionName === collectionName).map((entry) => entry.reader)
    },
    claimOperationIds(ids, place) {
      for (const id of ids) {
        const taken = operationIds.get(id)
        if (taken !== undefined) return { id, place: taken }
      }
      for (const id of ids) operationIds.set(id, place)
      return undefined
    },
    addService(name, service) {
      services.set(name, service)
    },
    service(name) {
      return { found: services.get(name), names: [...services.keys()] }
    },
    addModel(schema, place) {
      const name = (schema as { $id?: string }).$id
      if (name === undefined) return
      const known = models.get(name)
      if (known === undefined) {
        models.set(name, { schema, place })
        return
      }
      // The same model in two places (two API versions sharing `User`, `Tag` nested in `Post` and
      // embedded) is one model. TypeBox's `Type.Optional(Tag)` is a copy of `Tag`, equal as JSON Schema.
      if (known.schema === schema || isDeepStrictEqual(known.schema, schema)) return
      throw new SetupError(
        'FMC_ERR_MODEL_INVALID',
        `Two different models are named '${name}' in one app: ${known.place} and ${place}. Model names are OpenAPI component names and schema ids: give each model its own name, or share one model object`
      )
    },
    addRouter(db, collectionName, modelOut, place) {
      if (modelOut !== undefined) routers.push({ db: databaseOf(db), collectionName, modelOut, place })
    },
    modelOutFor(db, collectionName) {
      const database = databaseOf(db)
      return routers.find((router) => router.db === database && router.collectionName === collectionName)
    },
  }
}

/** Which database a handle reaches: its name when it has one, else the handle itself. */
function databaseOf(db: object): object | string {
  const name = databaseName(db)
  return name === undefined ? db : `db:${name}`
}
