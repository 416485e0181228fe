import type { FastifyRequest } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { allOf, type Filter } from '../query/filter.js'

/**
 * What the router's policy lets the caller of a Data API request do: the one place the endpoint asks,
 * so every action follows the decision the routes follow (core/router-context.ts `access`: the role of
 * the `access` policy, ANDed with the `filterDependency` scope). Each throws the policy's own 401 or 403
 * when no role applies, or when the role may not do that at all.
 */

/** The documents the caller may read: every read of every action runs under it. */
export async function readFilterOf(context: RouterContext, request: FastifyRequest): Promise<Filter | undefined> {
  return (await context.access(request)).grant('read')
}

/**
 * The documents an update, a replace or a delete may match: those the caller may both read and
 * change, so a count never tells of a document it cannot read.
 */
export async function writeFilterOf(context: RouterContext, request: FastifyRequest, op: 'update' | 'delete'): Promise<Filter | undefined> {
  const access = await context.access(request)
  return allOf(access.grant('read'), access.grant(op))
}

/** Whether the caller may create documents here at all (403 otherwise, before any document is looked at). */
export async function refuseUnlessCreates(context: RouterContext, request: FastifyRequest): Promise<void> {
  ;(await context.access(request)).grant('create')
}

/** Top-level fields the caller's role does not see, beyond what the output model hides. */
export async function hiddenFieldsOf(context: RouterContext, request: FastifyRequest): Promise<ReadonlySet<string>> {
  return (await context.access(request)).hidden
}

/** Top-level fields the caller's role may not set (an update operator naming one is refused). */
export async function readOnlyFieldsOf(context: RouterContext, request: FastifyRequest): Promise<ReadonlySet<string>> {
  return (await context.access(request)).readOnly
}
