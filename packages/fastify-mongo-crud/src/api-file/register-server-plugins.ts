import cors from '@fastify/cors'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { HTTPException } from '../errors.js'
import type { ApiFile } from './api-file.js'
import { formatDuration, parseDuration } from './duration.js'

/** Every method the routers answer: @fastify/cors allows only GET, HEAD and POST by default. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/** The headers the routes answer that a front end reads: without this list a browser hides them from its script. */
const EXPOSED_HEADERS = ['Location', 'ETag', 'Link', 'X-Total-Count', 'Retry-After', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

/**
 * The file's `cors` (@fastify/cors) and `rateLimit` (@fastify/rate-limit), registered before the
 * routers. CORS answers preflights before any other hook, so a browser's preflight is neither
 * counted by the rate limit nor refused for lacking a token. Past the limit, a request is 429 with
 * `Retry-After` and the routes' error body.
 */
export async function registerServerPlugins(app: FastifyInstance, api: ApiFile): Promise<void> {
  if (api.cors !== undefined && api.cors !== false) {
    const { origins, credentials, maxAge } = api.cors === true ? { origins: '*' as const, credentials: false, maxAge: undefined } : api.cors
    await app.register(cors, {
      origin: origins === '*' ? '*' : [...origins],
      credentials: credentials ?? false,
      methods: METHODS,
      exposedHeaders: EXPOSED_HEADERS,
      ...(maxAge === undefined ? {} : { maxAge }),
    })
  }
  if (api.rateLimit !== undefined) {
    const timeWindow = parseDuration(api.rateLimit.timeWindow ?? '1 minute')
    const per = formatDuration(timeWindow)
    await app.register(rateLimit, {
      max: api.rateLimit.max,
      timeWindow,
      errorResponseBuilder: (_request, context) =>
        new HTTPException(429, `Too many requests: at most ${context.max} per ${per} from one client; retry in ${context.after}`, 'FMC_ERR_RATE_LIMITED'),
    })
  }
}
