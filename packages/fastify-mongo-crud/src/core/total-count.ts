import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Filter } from '../query/filter.js'
import type { CollectionStore } from '../store/store.js'

/** What `Prefer: count=...` asked for; anything else in `Prefer` is not ours to apply (RFC 7240: ignored). */
type CountPreference = 'exact' | 'estimated'

/** The request header a list documents in OpenAPI. */
export const preferHeaderSchema = {
  type: 'object',
  properties: {
    prefer: {
      type: 'string',
      description: 'count=exact (or count=estimated) adds the total number of matching documents in X-Total-Count.',
    },
  },
} as const

/** The response headers a list may answer, for OpenAPI. */
export const countHeaders = {
  'X-Total-Count': { type: 'integer', description: 'Documents matching the filter and scope, all pages together (with Prefer: count=...)' },
  'Preference-Applied': { type: 'string', description: 'count=exact or count=estimated: how X-Total-Count was computed' },
} as const

/** The `count` preference of a request, from every `Prefer` header it carries (`Prefer: count=exact, return=minimal`). */
function countPreference(request: FastifyRequest): CountPreference | undefined {
  const raw = request.headers.prefer
  if (raw === undefined) return undefined
  for (const header of [raw].flat()) {
    for (const token of header.split(',')) {
      const [name, value] = token.split(';')[0]!.split('=').map((part) => part.trim().replace(/^"(.*)"$/, '$1').toLowerCase())
      if (name === 'count' && (value === 'exact' || value === 'estimated')) return value
    }
  }
  return undefined
}

/**
 * Answers `Prefer: count=...` with `X-Total-Count` and `Preference-Applied`, counting with `filter`:
 * the very filter the page is read with, scope included (not the cursor's position, not skip or limit),
 * so a count never reveals more than the list may show. The collection's metadata stands in for an
 * estimate only when there is no filter and no scope at all; otherwise the count is exact, and says so.
 */
export async function answerTotalCount(
  request: FastifyRequest,
  reply: FastifyReply,
  filter: Filter | undefined,
  count: (filter: Filter | undefined) => Promise<number>,
  estimate?: CollectionStore['estimatedCount']
): Promise<void> {
  addVary(reply, 'Prefer')
  const preference = countPreference(request)
  if (preference === undefined) return
  const estimated = preference === 'estimated' && filter === undefined && estimate !== undefined
  const total = estimated ? await estimate() : await count(filter)
  reply.header('x-total-count', String(total))
  reply.header('preference-applied', `count=${estimated ? 'estimated' : 'exact'}`)
}

/** Adds a name to `Vary` without dropping what another part of the app put there. */
function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary')
  const names = current === undefined ? [] : String(current).split(',').map((part) => part.trim()).filter(Boolean)
  if (!names.some((existing) => existing.toLowerCase() === name.toLowerCase())) names.push(name)
  reply.header('vary', names.join(', '))
}
