import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { createApp } from '../app.js'
import type { ApiFile, LogLevel } from './api-file.js'
import { registerServerPlugins } from './register-server-plugins.js'
import { toOpenApiOptions } from './to-openapi-options.js'

/**
 * The app a file's routers register on: `createApp` with the file's title, version, docs, body limit,
 * proxy trust and log level (`logLevel` wins over the file's), its CORS and rate limit, then `fastify`.
 * A `fastify.logger` object without a level (a stream, say) gets the level the file or `logLevel` sets, else warn.
 * The admin page is served when the file's `admin` is true, or the argument `admin` (the command's `--admin`) is.
 */
export async function createFileApp(api: ApiFile, fastify: FastifyServerOptions | undefined, logLevel?: LogLevel, admin?: boolean): Promise<FastifyInstance> {
  const bodyLimit = api.limits?.bodyLimit
  const level = logLevel ?? api.logLevel
  const logger = fastify?.logger
  // createApp logs at warn without a logger; a logger object without a level gets the file's (else warn), not pino's info.
  const leveled = typeof logger === 'object' && logger !== null ? { logger: { level: level ?? 'warn', ...logger } } : logger === undefined && level !== undefined ? { logger: { level } } : {}
  const app = await createApp({
    title: api.title ?? 'API',
    version: api.version ?? '1.0.0',
    ...(api.description === undefined ? {} : { description: api.description }),
    openapi: toOpenApiOptions(api),
    admin: admin === true || api.admin === true,
    fastify: {
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      ...(api.trustProxy === undefined ? {} : { trustProxy: api.trustProxy }),
      ...fastify,
      ...leveled,
    },
  })
  await registerServerPlugins(app, api)
  return app
}
