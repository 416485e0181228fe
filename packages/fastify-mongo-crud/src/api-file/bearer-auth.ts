import type { FastifyRequest } from 'fastify'
import { errors, type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose'
import { expireCredentialsAt } from '../credential-expiry.js'
import { HTTPException } from '../errors.js'
import type { AuthDeclaration } from './api-file.js'
import type { AuthKey } from './load-auth-key.js'

/** The claims of a request's token, once its signature, algorithm, expiry, issuer and audience were checked. */
export type Claims = JWTPayload

/** How the file's checks reach the caller's verified claims. */
export interface BearerAuth {
  /** The OpenAPI security scheme every token check is documented by. */
  readonly scheme: string
  /** The request's claims, verified once per request; a missing or invalid token throws 401 with its `WWW-Authenticate` challenge. */
  claims(request: FastifyRequest): Promise<Claims>
  /** The same, but undefined when the request sent no token (an `access` policy's public role); an invalid one still throws 401. */
  optionalClaims(request: FastifyRequest): Promise<Claims | undefined>
  /** The claims of a token the caller sent another way (the Data API's `jwtTokenString`), verified as the header's would be. */
  verifyToken(token: string, request: FastifyRequest): Promise<Claims>
  /** Claims the request's caller proved another way (a key of the Data API, docs/data-api.md): what its checks read. */
  vouch?(request: FastifyRequest, claims: Claims): void
}

/** The OpenAPI scheme of the file's token checks (to-openapi-options.ts declares it). */
export const authSchemeName = (auth: AuthDeclaration) => auth.securityScheme ?? 'bearerAuth'

const MISSING = "Authentication required: send a token in the Authorization header ('Authorization: Bearer <token>')"

/** Methods that read: the only ones a token in the file's `auth.cookie` is accepted on (list, read, `_groups`, `_events`). */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD'])

/** Why a route that verifies tokens answers 401, as its OpenAPI document says (core/route-refusals.ts). */
export const TOKEN_REFUSAL = 'Authentication required: no token was sent, or it is expired, forged or malformed (WWW-Authenticate says which)'

/**
 * Verifies `Authorization: Bearer <token>` (or, on reads, the cookie `auth.cookie` names) with the file's
 * key, as PostgREST does: the algorithms are the file's (a token cannot pick `none` or an HMAC against a
 * public key), and `exp`, `nbf`, `iss` and `aud` are checked. Answers as RFC 6750 says: a missing token
 * is 401 with `WWW-Authenticate: Bearer`, an expired, forged or malformed one 401 with
 * `error="invalid_token"` and what is wrong.
 */
export function bearerAuth(auth: AuthDeclaration, key: AuthKey): BearerAuth {
  const options: JWTVerifyOptions = {
    algorithms: key.algorithms,
    ...(auth.issuer === undefined ? {} : { issuer: auth.issuer }),
    ...(auth.audience === undefined ? {} : { audience: auth.audience }),
    clockTolerance: auth.clockTolerance ?? 0,
  }
  const verify = (request: FastifyRequest): Promise<Claims> => {
    const token = requestToken(request, auth.cookie)
    if (token === undefined) throw challenge(401, missing(request, auth.cookie))
    return verifyToken(token, request)
  }
  const verifyToken = async (token: string, request: FastifyRequest): Promise<Claims> => {
    try {
      const { payload } = typeof key.key === 'function' ? await jwtVerify(token, key.key, options) : await jwtVerify(token, key.key, options)
      // A change feed opened with the token ends when the token would no longer be accepted.
      if (typeof payload.exp === 'number') expireCredentialsAt(request, (payload.exp + (auth.clockTolerance ?? 0)) * 1000)
      return payload
    } catch (error) {
      if (error instanceof errors.JOSEError) throw challenge(401, tokenProblem(error), 'invalid_token')
      throw error
    }
  }
  const verified = new WeakMap<FastifyRequest, Promise<Claims>>()
  const vouched = new WeakMap<FastifyRequest, Claims>()
  const vouchedFor = (request: FastifyRequest): Claims | undefined => vouched.get(request)
  const claims = (request: FastifyRequest) => {
    const known = vouchedFor(request)
    if (known !== undefined) return Promise.resolve(known)
    let found = verified.get(request)
    if (found === undefined) {
      found = verify(request)
      verified.set(request, found)
    }
    return found
  }
  return {
    scheme: authSchemeName(auth),
    claims,
    verifyToken,
    optionalClaims: async (request) => vouchedFor(request) ?? (requestToken(request, auth.cookie) === undefined ? undefined : claims(request)),
    vouch: (request, known) => {
      vouched.set(request, known)
    },
  }
}

/**
 * The request's token: `Authorization: Bearer <token>`, else, on a request that reads, the cookie the
 * file's `auth.cookie` names (a browser's EventSource sends no header). A write never reads the cookie: a
 * browser sends cookies along with a request another site's page makes, so a cookie alone cannot write.
 */
function requestToken(request: FastifyRequest, cookie: string | undefined): string | undefined {
  const header = request.headers.authorization
  if (header !== undefined || cookie === undefined || !READS.has(request.method)) return /^Bearer +([^\s]+) *$/i.exec(header ?? '')?.[1]
  return cookieValue(request.headers.cookie, cookie)
}

/** The first value of the cookie `name` in a `Cookie` header (RFC 6265: `a=1; b=2`, a value maybe in quotes). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=')
    if (at === -1 || pair.slice(0, at).trim() !== name) continue
    const value = pair.slice(at + 1).trim().replace(/^"(.*)"$/, '$1')
    return value === '' ? undefined : value
  }
  return undefined
}

/** The detail of a 401 for a request without a token: where a token is read, and on a write that the cookie is not. */
function missing(request: FastifyRequest, cookie: string | undefined): string {
  if (cookie === undefined) return MISSING
  return READS.has(request.method) ? `${MISSING} or the ${cookie} cookie` : `${MISSING}: a write does not read the ${cookie} cookie`
}

/** What is wrong with a token, for its 401 (the caller holds the token: nothing here is news to them). */
function tokenProblem(error: InstanceType<typeof errors.JOSEError>): string {
  if (error instanceof errors.JWTExpired) return 'The token expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.reason === 'missing' ? `The token lacks the '${error.claim}' claim` : `The token's '${error.claim}' claim is not accepted`
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The token's signature does not verify"
  if (error instanceof errors.JOSEAlgNotAllowed) return "The token's algorithm is not accepted"
  if (error instanceof errors.JWKSNoMatchingKey) return "No key of the API matches the token's key id and algorithm"
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'The token is malformed'
  return 'The token is not valid'
}

/**
 * A refusal with its `WWW-Authenticate` challenge (RFC 6750, section 3): no error code when no token
 * was sent, `invalid_token` for a bad one, `insufficient_scope` for a good one whose claims do not
 * allow the route. The error handler sends the headers of a 4xx error with it.
 */
export function challenge(status: number, detail: string, error?: 'invalid_token' | 'insufficient_scope'): HTTPException {
  // A quoted-string of RFC 6750 takes printable ASCII but `"` and `\`.
  const quoted = (text: string) => text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?')
  const value = error === undefined ? 'Bearer' : `Bearer error="${error}", error_description="${quoted(detail)}"`
  const code = error === 'insufficient_scope' ? 'FMC_ERR_CLAIM_REFUSED' : 'FMC_ERR_UNAUTHENTICATED'
  return Object.assign(new HTTPException(status, detail, code), { headers: { 'www-authenticate': value } })
}
