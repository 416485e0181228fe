import type { FastifyRequest } from 'fastify'

/** What a role may do: the operations of every channel (docs/security.md, Access policy). */
export type AccessOp = 'read' | 'create' | 'update' | 'delete'
export const ACCESS_OPS: readonly AccessOp[] = ['read', 'create', 'update', 'delete']

/** A value a `when` accepts: JSON's scalars, as a claim or a header holds them. */
export type AccessValue = string | number | boolean

/**
 * When a role applies: a claim of the caller's token (`accessClaims`) or a header a gateway sets, present
 * and non-empty, or with `equals` holding one of the values (a list claim holds one if any item does).
 */
export type AccessWhen =
  | { readonly claim: string, readonly equals?: AccessValue | readonly AccessValue[] }
  | { readonly header: string, readonly equals?: AccessValue | readonly AccessValue[] }

/**
 * What a role may do with one operation: `true` (every document), `false` (none: 403), or a filter in
 * the closed grammar whose values may be `{ "$claim": "<name>" }` or `{ "$header": "<name>" }`. In code,
 * a function of the request returning one of these.
 */
export type AccessGrant = boolean | Record<string, unknown> | ((request: FastifyRequest) => boolean | Record<string, unknown> | Promise<boolean | Record<string, unknown>>)

/** One role of a router's `access` policy; the first role whose `when` holds applies to a request. */
export interface AccessRole {
  /** Its name, as OpenAPI and the errors show it. */
  readonly role: string
  /** Absent: always. In code, also a function of the request. */
  readonly when?: AccessWhen | ((request: FastifyRequest) => boolean | Promise<boolean>)
  readonly read?: AccessGrant
  readonly create?: AccessGrant
  readonly update?: AccessGrant
  readonly delete?: AccessGrant
  /** Top-level fields of the model this role never sees, beyond the output model's. */
  readonly hiddenFields?: readonly string[]
  /** Top-level fields of the model this role may not set. */
  readonly readOnlyFields?: readonly string[]
}

/** Where a role's `when: { claim }` and `{ "$claim" }` read the caller's claims: an object, or undefined when it sent no credentials. */
export type AccessClaims = (request: FastifyRequest) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>
