import type { FastifyRequest } from 'fastify'
import type { ResolvedRouterOptions } from '../options.js'
import { type Filter, MATCH_NOTHING } from '../query/filter.js'
import { type FilterContext, parseFilterObject } from '../query/parse-filter.js'

/**
 * The compiled scope of `filterDependency` for a request, computed once per request; undefined when
 * there is none. The scope is server code, but it is built from request data (a header, a token
 * claim): a missing value or one of the wrong type is the app's problem, never a reason to widen the
 * scope or to answer 500. It matches nothing, and the first occurrence of each problem is logged.
 */
export function requestScope(options: ResolvedRouterOptions, scopeContext: FilterContext): (request: FastifyRequest) => Promise<Filter | undefined> {
  const scopes = new WeakMap<FastifyRequest, Promise<Filter | undefined>>()
  const logged = new Set<string>()

  async function compileScope(request: FastifyRequest): Promise<Filter | undefined> {
    const filterDependency = options.filterDependency
    if (filterDependency === undefined) return undefined
    const raw = await filterDependency(request)
    if (raw === undefined || raw === null) return undefined
    const missing = findUndefined(raw)
    const problem = missing !== undefined ? `filterDependency returned undefined for "${missing}"` : tryParse(raw)
    if (typeof problem !== 'string') return problem
    if (!logged.has(problem)) {
      logged.add(problem)
      request.log.error({ collection: options.collectionName }, `${problem}: the scope matches nothing (logged once)`)
    }
    return MATCH_NOTHING
  }

  function tryParse(raw: unknown): Filter | undefined | string {
    try {
      return parseFilterObject(raw, scopeContext)
    } catch (error) {
      return `filterDependency returned a filter the router cannot use (${(error as Error).message})`
    }
  }

  return (request) => {
    let found = scopes.get(request)
    if (found === undefined) {
      found = compileScope(request)
      scopes.set(request, found)
    }
    return found
  }
}


/** The dotted path of the first `undefined` value in a scope object, if any. */
function findUndefined(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  for (const [key, sub] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`
    if (sub === undefined) return here
    const found = findUndefined(sub, here)
    if (found !== undefined) return found
  }
  return undefined
}

