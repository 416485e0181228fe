import type { FastifyInstance } from 'fastify'
import { SetupError } from '../errors.js'
import { CRUDRouter } from '../plugin.js'
import type { DriverDb } from '../store/driver-db.js'
import type { ApiFileIssue } from './api-file-error.js'
import { authSchemeName, type BearerAuth } from './bearer-auth.js'
import { routerOfReadyError } from './build-api-app.js'
import { createFileApp } from './create-file-app.js'
import type { LoadedApiFile } from './load-api-file.js'
import { locateSetupError } from './locate-setup-error.js'
import { escapePointer } from './parse-json-positions.js'
import { refusedParts } from './refused-parts.js'
import { registrableApi } from './registrable-api.js'
import { ModelCatalog } from './to-models.js'
import { type FileRouter, toRouterOptions } from './to-router-options.js'

/**
 * A database that stores nothing: registration only declares indexes, and `check` opens no database.
 * Anything else would be a request, which `check` never serves.
 */
const NO_DATABASE: DriverDb = {
  collection: () =>
    new Proxy({} as ReturnType<DriverDb['collection']>, {
      get: (_, method) => (method === 'createIndex' ? async () => 'checked' : undefined),
    }),
}

/**
 * Token checks as registration builds them: registration only needs them to exist (no request comes),
 * and `check` reads no secret.
 */
const UNUSED_CLAIMS = () => Promise.reject(new Error('check serves no request'))

/**
 * `check`'s last step: registers the file's routers as `serve` does (buildApiApp), on no database, so
 * that whatever the library refuses at registration is found without serving. Each router's refusal
 * is reported, not only the first: a router that fails is left out and the next one registers. The
 * parts `earlier` issues are about are left out (registrable-api.ts), so nothing is reported twice.
 */
export async function checkRegistration(loaded: LoadedApiFile, earlier: readonly ApiFileIssue[]): Promise<ApiFileIssue[]> {
  const refused = refusedParts(earlier)
  if (refused.all) return []
  const file = { ...loaded, api: registrableApi(loaded.api, refused) }
  const issues: ApiFileIssue[] = []
  const refuse = (error: unknown, router: FileRouter | undefined, name = router?.name) => {
    if (!(error instanceof SetupError)) throw error
    const pointer = name === undefined ? '' : `/routers/${escapePointer(name)}`
    issues.push(locateSetupError(error, name === undefined ? undefined : loaded.api.routers[name], pointer, loaded.positions))
  }
  const app = await createFileApp(file.api, { logger: false })
  try {
    const catalog = new ModelCatalog(file.api)
    const auth: BearerAuth = { scheme: file.api.auth === undefined ? 'bearerAuth' : authSchemeName(file.api.auth), claims: UNUSED_CLAIMS, verifyToken: UNUSED_CLAIMS, optionalClaims: UNUSED_CLAIMS }
    const routers: FileRouter[] = []
    for (const name of Object.keys(file.api.routers)) {
      try {
        const router = toRouterOptions(file, catalog, NO_DATABASE, name, auth)
        routers.push(router)
        await registerApart(app, router, refuse)
      } catch (error) {
        refuse(error, undefined, name)
      }
    }
    try {
      await app.ready()
    } catch (error) {
      refuse(error, error instanceof SetupError ? routerOfReadyError(routers, error) : undefined)
    }
  } finally {
    await app.close().catch(() => undefined)
  }
  return issues
}

/**
 * `app.register(CRUDRouter, options)`, its refusal caught inside its own plugin: Fastify then goes on
 * with the next router instead of failing the app at the first.
 */
async function registerApart(app: FastifyInstance, router: FileRouter, refuse: (error: unknown, router: FileRouter) => void): Promise<void> {
  await app.register(
    async (scope) => {
      try {
        await CRUDRouter(scope, router.options)
      } catch (error) {
        refuse(error, router)
      }
    },
    { prefix: router.options.prefix }
  )
}
