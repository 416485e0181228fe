import type { FastifyRequest } from 'fastify'
import { errors, type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose'
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
}

/** The OpenAPI scheme of the file's token checks (to-openapi-options.ts declares it). */
export const authSchemeName = (auth: AuthDeclaration) => auth.securityScheme ?? 'bearerAuth'

const MISSING = "Authentication required: send a token in the Authorization header ('Authorization: Bearer <token>')"

/** Why a route that verifies tokens answers 401, as its OpenAPI document says (core/route-refusals.ts). */
export const TOKEN_REFUSAL = 'Authentication required: no token was sent, or it is expired, forged or malformed (WWW-Authenticate says which)'

/**
 * Verifies `Authorization: Bearer <token>` with the file's key, as PostgREST does: the algorithms
 * are the file's (a token cannot pick `none` or an HMAC against a public key), and `exp`, `nbf`,
 * `iss` and `aud` are checked. Answers as RFC 6750 says: a missing token is 401 with `WWW-Authenticate:
 * Bearer`, an expired, forged or malformed one 401 with `error="invalid_token"` and what is wrong.
 */
export function bearerAuth(auth: AuthDeclaration, key: AuthKey): BearerAuth {
  const options: JWTVerifyOptions = {
    algorithms: key.algorithms,
    ...(auth.issuer === undefined ? {} : { issuer: auth.issuer }),
    ...(auth.audience === undefined ? {} : { audience: auth.audience }),
    clockTolerance: auth.clockTolerance ?? 0,
  }
  const verify = async (request: FastifyRequest): Promise<Claims> => {
    const token = /^Bearer +([^\s]+) *$/i.exec(request.headers.authorization ?? '')?.[1]
    if (token === undefined) throw challenge(401, MISSING)
    try {
      const { payload } = typeof key.key === 'function' ? await jwtVerify(token, key.key, options) : await jwtVerify(token, key.key, options)
      return payload
    } catch (error) {
      if (error instanceof errors.JOSEError) throw challenge(401, tokenProblem(error), 'invalid_token')
      throw error
    }
  }
  const verified = new WeakMap<FastifyRequest, Promise<Claims>>()
  return {
    scheme: authSchemeName(auth),
    claims(request) {
      let claims = verified.get(request)
      if (claims === undefined) {
        claims = verify(request)
        verified.set(request, claims)
      }
      return claims
    },
  }
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
