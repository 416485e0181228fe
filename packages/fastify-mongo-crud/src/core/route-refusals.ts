import { errorRef } from '../schema/error-schemas.js'

/** What a check refuses with, by status, in words for the OpenAPI document (one reason or several). */
export type Refusals = Readonly<Partial<Record<401 | 403, string | readonly string[]>>>

const REFUSALS: unique symbol = Symbol.for('fastify-mongo-crud.refusals')

/** What a route documents for a check that declared nothing: a dependency of the app's own may refuse with any status. */
const UNDECLARED: Refusals = { 403: 'Refused by a dependency' }

/**
 * Declares the statuses a check refuses with (the API file's token, claim and header checks), so that
 * the routes running it document those: a 401 where a token or a header is missing, a 403 only where
 * a claim or a value is refused. Marks `check` itself, so that a `securedBy` mark on it stays.
 */
export function refusing<F extends (...args: never[]) => unknown>(refusals: Refusals, check: F): F {
  Object.defineProperty(check, REFUSALS, { value: Object.freeze({ ...refusals }), enumerable: false })
  return check
}

/** The refusals a route running `checks` answers, each status with its descriptions; empty without checks. */
export function refusalsOf(checks: readonly unknown[]): ReadonlyMap<number, readonly string[]> {
  const found = new Map<number, string[]>()
  for (const check of checks) {
    const declared = (check as Record<symbol, Refusals | undefined>)[REFUSALS] ?? UNDECLARED
    for (const [status, reasons] of Object.entries(declared)) {
      const descriptions = found.get(Number(status)) ?? []
      for (const reason of typeof reasons === 'string' ? [reasons] : reasons) if (!descriptions.includes(reason)) descriptions.push(reason)
      found.set(Number(status), descriptions)
    }
  }
  return found
}

/**
 * The error responses of a route running `checks`, with `also` (more reasons of a status the route
 * answers itself, such as a scoped write's 403) joined to theirs.
 */
export function refusalResponses(checks: readonly unknown[], also: Readonly<Record<number, string>> = {}): Record<number, object> {
  const found = new Map(refusalsOf(checks))
  for (const [status, description] of Object.entries(also)) found.set(Number(status), [...(found.get(Number(status)) ?? []), description])
  return Object.fromEntries([...found].map(([status, descriptions]) => [status, { ...errorRef, description: descriptions.join('; or: ') }]))
}
