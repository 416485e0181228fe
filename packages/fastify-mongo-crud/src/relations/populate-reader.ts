import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PopulateReader } from '../app-registry.js'
import { type RouterContext, withoutHidden } from '../core/router-context.js'
import type { Dependency } from '../options.js'
import { allOf, type Filter } from '../query/filter.js'
import { isObjectIdHex } from '../shapes/object-id.js'

/**
 * How a populate of another router reads this router's documents: as this router's GET one would
 * answer them to the same caller. Its row scope applies (ids outside it behave as missing), and so do
 * its GetOne dependencies: a refusal makes every id missing. Without this, a reference is a way
 * around the scope: a client stores the id of a document it may not read, and GET answers it populated.
 */
export function buildPopulateReader(context: RouterContext): PopulateReader {
  const dependencies = context.options.dependencies.GetOne
  const dependsOnCaller = context.guarded || dependencies.length > 0
  const read: PopulateReader['read'] = async (ids, caller) => {
    // The service API runs no dependencies (docs/service-api.md); its populates run none either.
    if (caller.reply !== undefined && !(await passes(dependencies, caller.request, caller.reply))) return []
    const valid = [...new Set(ids.filter(isObjectIdHex).map((id) => id.toLowerCase()))]
    if (valid.length === 0) return []
    const byId: Filter = { kind: 'field', path: 'id', conditions: [{ op: 'in', values: valid }] }
    // What the caller's role may not read is missing; what it does not see of the rest, absent.
    const access = await readAccess(context, caller.request)
    if (access === undefined) return []
    const docs = await context.store.find({ filter: allOf(byId, access.filter), skip: 0 })
    return access.hidden.size === 0 ? docs : docs.map((doc) => withoutHidden(doc, access.hidden))
  }
  return { read, dependsOnCaller }
}

/** What the caller may read here, or undefined when no role lets it read at all (a refusal of the policy). */
async function readAccess(context: RouterContext, request: FastifyRequest) {
  try {
    const decision = await context.access(request)
    return decision.allows('read') ? { filter: decision.grant('read'), hidden: decision.hidden } : undefined
  } catch (error) {
    const status = (error as { statusCode?: unknown }).statusCode
    if (status === 401 || status === 403) return undefined
    throw error
  }
}

/**
 * Whether the caller passes every dependency. They see the request of the route that populates (its
 * headers are the caller's; its path parameters are that route's). A dependency refuses by throwing
 * an error with a 4xx status; anything else is a failure of the request and propagates.
 */
async function passes(dependencies: readonly Dependency[], request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  for (const dependency of dependencies) {
    try {
      await dependency(request, reply)
    } catch (error) {
      const status = (error as { statusCode?: unknown }).statusCode
      if (typeof status === 'number' && status >= 400 && status < 500) return false
      throw error
    }
  }
  return true
}
