import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { registerAdmin } from './admin/register-admin.js'
import { clientErrorHandler } from './client-error-handler.js'
import { OPENAPI_PATH, type OpenAPIDocsOptions, registerDocs } from './docs/register-docs.js'
import { handleError } from './error-handler.js'
import { chooseLogFormat, formattedLogger, type LogFormat } from './log-format.js'

/**
 * Fastify waits forever by default. A connection with no traffic either way for a minute (a client
 * that stopped reading a response, or went silent) is closed, and a request must arrive whole
 * within 30 seconds; both can be changed through `fastify`.
 */
const SLOW_CLIENT_TIMEOUTS = { connectionTimeout: 60_000, requestTimeout: 30_000 } as const

export interface CreateAppOptions {
  title?: string
  version?: string
  description?: string
  /** The rest of the OpenAPI document: servers, security schemes, license, contact, tag descriptions (docs/openapi.md). */
  openapi?: OpenAPIDocsOptions
  /**
   * Passed to Fastify (logger, bodyLimit, trustProxy...). Without `logger` or `loggerInstance`, the app
   * logs at level "warn" to stdout: every 5xx with its stack, and the library's warnings.
   */
  fastify?: FastifyServerOptions
  /**
   * How the log is written: `pretty` (one human line per entry, pino-pretty's) or `json` (pino's JSON lines).
   * Default: the environment's `FMC_LOG_FORMAT`, else `pretty` when stdout is a terminal and `json` otherwise.
   * It applies to the default logger and to a `fastify.logger` that writes to stdout (`true`, or options
   * without `stream`, `file` or `transport`); a `loggerInstance` is left as it is.
   */
  logFormat?: LogFormat
  /** Serves the admin page at `GET /admin` (docs/admin.md); default false. */
  admin?: boolean
}

/**
 * A Fastify instance with the API documentation (`/docs`, `/redoc`, `/openapi.json`) and the
 * library's error format (`{ "detail": ... }`) for everything: unknown routes, and what the router
 * (`frameworkErrors`: bad URL encoding, over-long path parameter) and Node's HTTP parser
 * (`clientErrorHandler`: oversized headers, unparsable requests) refuse before any route runs.
 */
export async function createApp(options: CreateAppOptions = {}): Promise<FastifyInstance> {
  const logging = options.fastify?.logger === undefined && options.fastify?.loggerInstance === undefined
  // A failure nobody sees cannot be fixed: 5xx answers are logged unless the caller says otherwise.
  const logger = await formattedLogger(logging ? { level: 'warn' } : options.fastify?.logger, chooseLogFormat(options.logFormat))
  const app = Fastify({
    // Both poisoning shapes are refused while parsing, before any code sees the object.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors: (error, request, reply) => handleError(error as Parameters<typeof handleError>[0], request, reply),
    clientErrorHandler,
    ...SLOW_CLIENT_TIMEOUTS,
    ...options.fastify,
    ...(logger === undefined ? {} : { logger }),
  })
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ detail: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })
  await registerDocs(app, {
    ...options.openapi,
    title: options.title ?? 'API',
    version: options.version ?? '1.0.0',
    ...(options.description === undefined ? {} : { description: options.description }),
  })
  if (options.admin === true) await registerAdmin(app, { title: options.title ?? 'API', openapiUrl: OPENAPI_PATH })
  return app
}
