import { invalidQuery } from '../errors.js'
import type { ListQueryString } from './list-query.js'

export interface PageLimits {
  /** Applied when the client sends no `limit`; unset means unbounded (the Python original's default), streamed. */
  defaultLimit?: number | undefined
  maxLimit?: number | undefined
  maxSkip?: number | undefined
}

export function parsePage(query: ListQueryString, limits: PageLimits): { skip: number, limit?: number | undefined } {
  const skip = query.skip ?? 0
  if (limits.maxSkip !== undefined && skip > limits.maxSkip) {
    throw invalidQuery(`skip must be at most ${limits.maxSkip}`)
  }
  const limit = query.limit ?? limits.defaultLimit
  if (limit !== undefined && limits.maxLimit !== undefined && limit > limits.maxLimit) {
    throw invalidQuery(`limit must be at most ${limits.maxLimit}`)
  }
  return { skip, limit }
}
