import type { FastifyRequest } from 'fastify'
import { refusing } from '../core/route-refusals.js'
import { type Dependency, type FilterDependency, securedBy } from '../dependency.js'
import type { ClaimGuard, ClaimScope } from './api-file.js'
import { type BearerAuth, challenge, TOKEN_REFUSAL } from './bearer-auth.js'

/**
 * Guards and scopes on the claims of the token `auth` verified. Each first verifies the token
 * (401 without a valid one), then checks its claim: a refusal is 403 (a guard's `status` may say
 * 401) with `WWW-Authenticate: Bearer error="insufficient_scope"`. All are documented by the scheme of `auth`.
 */

/** Every route of the file's routers, when `auth.required` is not false: a valid token, whatever it claims. */
export function authenticated(auth: BearerAuth): Dependency {
  const check = securedBy(auth.scheme, async (request: FastifyRequest) => {
    await auth.claims(request)
  })
  return refusing({ 401: TOKEN_REFUSAL }, check)
}

/** The claim is present and, with `equals`, holds one of the values; a list claim (roles) holds one if any item does. */
export function claimGuard(guard: ClaimGuard, auth: BearerAuth): Dependency {
  const accepted = guard.equals === undefined ? undefined : new Set(Array.isArray(guard.equals) ? guard.equals : [guard.equals])
  const detail =
    guard.detail ??
    (accepted === undefined ? `Refused: this route requires a token with the '${guard.claim}' claim` : `Refused: the token's '${guard.claim}' claim does not allow this route`)
  const status = guard.status ?? 403
  const check = securedBy(auth.scheme, async (request: FastifyRequest) => {
    const values = claimTexts((await auth.claims(request))[guard.claim])
    const holds = accepted === undefined ? values.length > 0 : values.some((value) => accepted.has(value))
    if (!holds) throw challenge(status, detail, 'insufficient_scope')
  })
  return refusing(status === 401 ? { 401: [TOKEN_REFUSAL, detail] } : { 401: TOKEN_REFUSAL, 403: detail }, check)
}

/**
 * The scope's claim, required and checked against its field's schema (`validate`): a token without
 * it, or whose value the field refuses, is 403. The filter is `{ <field>: <the claim> }`.
 */
export function claimScope(scope: ClaimScope, validate: (value: unknown) => { error?: unknown }, auth: BearerAuth): { check: Dependency, filterDependency: FilterDependency } {
  const detail = scope.detail ?? `Refused: the token's '${scope.claim}' claim does not name a valid ${scope.field}`
  return {
    check: refusing(
      { 401: TOKEN_REFUSAL, 403: detail },
      securedBy(auth.scheme, async (request: FastifyRequest) => {
        const value = (await auth.claims(request))[scope.claim]
        if (typeof value !== 'string' || validate(value).error !== undefined) throw challenge(403, detail, 'insufficient_scope')
      })
    ),
    filterDependency: securedBy(auth.scheme, (async (request) => ({ [scope.field]: (await auth.claims(request))[scope.claim] })) as FilterDependency),
  }
}

/** A claim's values as text: a string, each string of a list; numbers and booleans as JSON writes them (`42`, `true`). */
function claimTexts(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === 'string' ? [item] : typeof item === 'number' || typeof item === 'boolean' ? [JSON.stringify(item)] : []
  )
}
