import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PopulateReader } from '../app-registry.js'
import type { RouterContext } from '../core/router-context.js'
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
  const dependsOnCaller = context.options.filterDependency !== undefined || dependencies.length > 0
  const read: PopulateReader['read'] = async (ids, caller) => {
    // The service API runs no dependencies (docs/service-api.md); its populates run none either.
    if (caller.reply !== undefined && !(await passes(dependencies, caller.request, caller.reply))) return []
    const valid = [...new Set(ids.filter(isObjectIdHex).map((id) => id.toLowerCase()))]
    if (valid.length === 0) return []
    const byId: Filter = { kind: 'field', path: 'id', conditions: [{ op: 'in', values: valid }] }
    return context.store.find({ filter: allOf(byId, await context.scope(caller.request)), skip: 0 })
  }
  return { read, dependsOnCaller }
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
