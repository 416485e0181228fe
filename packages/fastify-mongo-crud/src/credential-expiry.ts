import type { FastifyRequest } from 'fastify'

/**
 * When the credentials a request was let in with stop being valid: a verified token's `exp`
 * (api-file/bearer-auth.ts). A response that outlives its request, a change feed (routes/serve-events.ts),
 * ends then, so a feed opened with a token never tells more than the token allows.
 */
const expiries = new WeakMap<FastifyRequest, number>()

/** Records that the request's credentials expire at `at` (milliseconds since the epoch); the earliest of several counts. */
export function expireCredentialsAt(request: FastifyRequest, at: number): void {
  const known = expiries.get(request)
  if (known === undefined || at < known) expiries.set(request, at)
}

/** When the request's credentials expire (milliseconds since the epoch); undefined when they do not. */
export function credentialsExpiry(request: FastifyRequest): number | undefined {
  return expiries.get(request)
}
