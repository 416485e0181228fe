import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { createApp } from '../app.js'
import { CRUDRouter } from '../crud-router.js'
import { SetupError } from '../errors.js'
import type { DriverDb } from '../store/driver-db.js'
import { ApiFileError } from './api-file-error.js'
import type { LoadedApiFile } from './load-api-file.js'
import { escapePointer } from './parse-json-positions.js'
import { ModelCatalog } from './to-models.js'
import { toOpenApiOptions } from './to-openapi-options.js'
import { type FileRouter, toRouterOptions } from './to-router-options.js'

export interface BuildApiAppOptions {
  /** Passed to Fastify after the file's own settings (`limits.bodyLimit`): a logger, for example. */
  fastify?: FastifyServerOptions
  /**
   * Every router's `cursorSecret` and `etagKey` (at least 32 characters): instances serving one API
   * must share it, or a page cursor or an ETag one answered fails on another. Default: random per process.
   * One secret serves both: the cursor key is derived from it, the ETags key an HMAC with it directly.
   */
  secret?: string
}

/**
 * The app an API file declares, on `db`, ready to listen: `createApp` (docs at /docs and /redoc) with
 * one CRUDRouter per router of the file, in file order. What the library refuses at registration
 * (a SetupError: a modelOut field the model lacks, an index on an unknown field...) is an ApiFileError
 * at the router's line.
 */
export async function buildApiApp(loaded: LoadedApiFile, db: DriverDb, options: BuildApiAppOptions = {}): Promise<FastifyInstance> {
  const { api } = loaded
  const bodyLimit = api.limits?.bodyLimit
  const app = await createApp({
    title: api.title ?? 'API',
    version: api.version ?? '1.0.0',
    ...(api.description === undefined ? {} : { description: api.description }),
    openapi: toOpenApiOptions(api),
    fastify: { ...(bodyLimit === undefined ? {} : { bodyLimit }), ...options.fastify },
  })
  const catalog = new ModelCatalog(api)
  const routers: FileRouter[] = []
  try {
    for (const name of Object.keys(api.routers)) {
      const pointer = `/routers/${escapePointer(name)}`
      try {
        const router = toRouterOptions(loaded, catalog, db, name)
        if (options.secret !== undefined) Object.assign(router.options, { cursorSecret: options.secret, etagKey: options.secret })
        routers.push(router)
        await app.register(CRUDRouter, router.options)
      } catch (error) {
        throw error instanceof SetupError ? fileError(loaded, pointer, error) : error
      }
    }
    try {
      await app.ready()
    } catch (error) {
      if (!(error instanceof SetupError)) throw error
      // Checks that run once every router is known name the router by its prefix.
      const router = routers.find((r) => error.message.includes(`'${r.options.prefix}'`))
      throw fileError(loaded, router?.pointer ?? '', error)
    }
  } catch (error) {
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}

function fileError(loaded: LoadedApiFile, pointer: string, error: SetupError): ApiFileError {
  const located = loaded.positions.get(pointer)
  const position = located?.key ?? located?.value ?? { line: 1, column: 1 }
  return new ApiFileError(loaded.name, [{ ...position, pointer, message: `${error.message} (${error.code})` }])
}
