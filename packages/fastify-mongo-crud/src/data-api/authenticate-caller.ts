import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { invalidParameter, invalidSession, noCredentials } from './data-api-error.js'
import type { DataApiKey, ResolvedDataApiOptions } from './data-api-options.js'

/** The claims of each request's caller, once authenticated. */
const callers = new WeakMap<FastifyRequest, Readonly<Record<string, unknown>>>()

/**
 * The claims the Data API established for a request (its key's, or its token's): what a router's guard
 * reads of the caller. Undefined on another route.
 */
export function dataApiClaims(request: FastifyRequest): Readonly<Record<string, unknown>> | undefined {
  return callers.get(request)
}

/**
 * Names the caller of a request as the Data API did (docs/data-api.md, Credentials): `Authorization:
 * Bearer <token>` first (a bad token fails, whatever else is sent), else the `apiKey` header, else the
 * `jwtTokenString` header. No credentials are 400, credentials that name no caller 401, as MongoDB
 * answered them. The claims become the request's `user` (where the routers' `access` roles read them by
 * default) and are handed to `onCaller` (an API file's token checks), so every router the request
 * reaches sees the same caller.
 */
export function callerAuthenticator(options: ResolvedDataApiOptions, onCaller?: (request: FastifyRequest, claims: Record<string, unknown>) => void) {
  const keys = options.keys.map((key) => ({ key, digest: digestOf(key.key) }))
  return async (request: FastifyRequest): Promise<void> => {
    const claims = await claimsOf(request)
    callers.set(request, claims)
    ;(request as { user?: unknown }).user = claims
    onCaller?.(request, claims)
  }

  async function claimsOf(request: FastifyRequest): Promise<Record<string, unknown>> {
    const bearer = /^Bearer +(\S+) *$/i.exec(header(request, 'authorization') ?? '')?.[1]
    if (bearer !== undefined) return verified(bearer, request)
    const apiKey = header(request, 'apikey')
    if (apiKey !== undefined) return { ...keyNamed(apiKey)?.claims }
    const token = header(request, 'jwttokenstring')
    if (token !== undefined) return verified(token, request)
    if (header(request, 'email') !== undefined || header(request, 'password') !== undefined) {
      throw invalidParameter('email and password credentials are not taken here: send an apiKey header, or a token (Authorization: Bearer, or jwtTokenString)')
    }
    throw noCredentials()
  }

  /** The key sent, compared with every key in constant time (no early answer tells how much of a key was right). */
  function keyNamed(sent: string): DataApiKey {
    const digest = digestOf(sent)
    let found: DataApiKey | undefined
    for (const candidate of keys) if (timingSafeEqual(digest, candidate.digest)) found = candidate.key
    if (found === undefined) throw invalidSession()
    return found
  }

  async function verified(token: string, request: FastifyRequest): Promise<Record<string, unknown>> {
    if (options.verifyToken === undefined) throw invalidSession()
    try {
      return { ...(await options.verifyToken(token, request)) }
    } catch (error) {
      // As MongoDB did, the caller is not told why (expired, forged, another issuer): the log says.
      request.log.debug({ err: error }, 'Data API: a token did not verify')
      throw invalidSession()
    }
  }
}

const digestOf = (text: string) => createHash('sha256').update(text).digest()

/** A header's value once (a header sent twice is taken as not sent: neither value is chosen for the caller). */
function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}
