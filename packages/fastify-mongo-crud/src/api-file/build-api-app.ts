import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { CRUDRouter } from '../crud-router.js'
import { DataAPI } from '../data-api/data-api-plugin.js'
import { SetupError } from '../errors.js'
import type { DriverDb } from '../store/driver-db.js'
import type { LogLevel } from './api-file.js'
import { ApiFileError } from './api-file-error.js'
import { createFileApp } from './create-file-app.js'
import { fileAuth } from './file-auth.js'
import { fileDataApiOptions } from './file-data-api.js'
import type { LoadedApiFile } from './load-api-file.js'
import { locateSetupError } from './locate-setup-error.js'
import { escapePointer } from './parse-json-positions.js'
import { ModelCatalog } from './to-models.js'
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
  /** Where `auth.secretEnv` is read (default `process.env`). */
  env?: NodeJS.ProcessEnv
  /** The logger's level, over the file's `logLevel` (the command's `--log-level`). */
  logLevel?: LogLevel
  /** Serves the admin page at /admin even when the file's `admin` is not true (the command's `--admin`). */
  admin?: boolean
}

/**
 * The app an API file declares, on `db`, ready to listen: `createApp` (docs at /docs and /redoc) with
 * the file's CORS, rate limit and token verification, and one CRUDRouter per router of the file, in
 * file order. A key of `auth` that cannot be used (a secret not set or too short, a key file that is
 * not a public key) is an ApiFileError at that key, before anything is built. What the library refuses at registration
 * (a SetupError: a modelOut field the model lacks, a defaultSort field clients may not sort on...) is
 * an ApiFileError at the place of the file its message names, else at the router's name.
 * `check` (verify-api-file.ts) runs the same registration on no database.
 */
export async function buildApiApp(loaded: LoadedApiFile, db: DriverDb, options: BuildApiAppOptions = {}): Promise<FastifyInstance> {
  const auth = await fileAuth(loaded, options.env ?? process.env)
  const app = await createFileApp(loaded.api, options.fastify, options.logLevel, options.admin)
  const catalog = new ModelCatalog(loaded.api)
  const routers: FileRouter[] = []
  try {
    for (const name of Object.keys(loaded.api.routers)) {
      try {
        const router = toRouterOptions(loaded, catalog, db, name, auth)
        if (options.secret !== undefined) Object.assign(router.options, { cursorSecret: options.secret, etagKey: options.secret })
        routers.push(router)
        await app.register(CRUDRouter, router.options)
      } catch (error) {
        throw error instanceof SetupError ? fileError(loaded, name, error) : error
      }
    }
    // The Data API over the file's routers (docs/data-api.md), its keys read from the environment.
    if (loaded.api.dataApi !== undefined) await app.register(DataAPI, fileDataApiOptions(loaded, auth, options.env ?? process.env))
    try {
      await app.ready()
    } catch (error) {
      if (!(error instanceof SetupError)) throw error
      throw fileError(loaded, routerOfReadyError(routers, error)?.name, error)
    }
  } catch (error) {
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}

/** Checks that run once every router is known name the router by its prefix. */
export function routerOfReadyError(routers: readonly FileRouter[], error: SetupError): FileRouter | undefined {
  return routers.find((router) => error.message.includes(`'${router.options.prefix}'`))
}

function fileError(loaded: LoadedApiFile, name: string | undefined, error: SetupError): ApiFileError {
  const pointer = name === undefined ? '' : `/routers/${escapePointer(name)}`
  return new ApiFileError(loaded.name, [locateSetupError(error, name === undefined ? undefined : loaded.api.routers[name], pointer, loaded.positions)])
}
