import type { ResolvedRouterOptions } from '../options.js'
import { invalidParameter } from './data-api-error.js'

/** What `find` answers when no `limit` is sent, and the most it answers: the Data API's own bounds. */
export const DEFAULT_FIND_LIMIT = 1000
export const MAX_FIND_LIMIT = 50_000

/**
 * A `find`'s `limit` and `skip`. `limit`: 1 to 50,000 (the Data API's most), 1000 when absent or 0;
 * the router's own `maxLimit` and `maxSkip`, which bound its lists, bound these too.
 */
export function pageBounds(body: Readonly<Record<string, unknown>>, router: ResolvedRouterOptions): { limit: number, skip: number } {
  const ceiling = Math.min(MAX_FIND_LIMIT, router.maxLimit ?? MAX_FIND_LIMIT)
  const limit = body['limit'] === undefined || body['limit'] === 0 ? Math.min(DEFAULT_FIND_LIMIT, ceiling) : body['limit']
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw invalidParameter("'limit' must be a positive integer")
  if (limit > ceiling) throw invalidParameter(`'limit' must be at most ${ceiling}`)
  const skip = body['skip'] ?? 0
  if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0) throw invalidParameter("'skip' must be a non-negative integer")
  if (router.maxSkip !== undefined && skip > router.maxSkip) throw invalidParameter(`'skip' must be at most ${router.maxSkip}`)
  return { limit, skip }
}
