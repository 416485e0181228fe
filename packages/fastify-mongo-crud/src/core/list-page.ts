import type { FastifyReply } from 'fastify'
import { invalidCursor } from '../errors.js'
import { allOf } from '../query/filter.js'
import type { ListQuery, ListQueryString, SortSpec } from '../query/list-query.js'
import { afterKey, cursorBinding, keysetSortable, type PageCursors, pageKeyOf } from '../query/page-cursor.js'
import type { fieldSelector } from '../query/parse-fields.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import type { CollectionStore, WireDoc } from '../store/store.js'
import type { Caller } from './router-context.js'
import { STREAM_ABOVE } from './serve-list.js'
import { answerTotalCount } from './total-count.js'

/** What a list offers besides its filter, sort and page: counts, `fields=`, page cursors. */
export interface ListPageSpec {
  /** Counts for `Prefer: count=...`; `estimated` where the list can read its collection's metadata. */
  readonly count: (filter: ListQuery['filter']) => Promise<number>
  readonly estimatedCount?: CollectionStore['estimatedCount'] | undefined
  /** `fields=` against the output model. */
  readonly selectFields: ReturnType<typeof fieldSelector>
  /** Page cursors, and the stored shape that says which sort fields they can continue on. */
  readonly cursors?: { readonly seal: PageCursors, readonly typed: ShapeNode } | undefined
}

/** The page as the store reads it, and what is done with it before it is shown (the next page's Link). */
export interface PreparedPage {
  query: ListQuery
  onPage?: ((page: WireDoc[], reply: FastifyReply) => WireDoc[]) | undefined
}

/** Response headers of a list, for OpenAPI. */
export const nextLinkHeader = {
  Link: { type: 'string', description: 'The next page, as <url>; rel="next" (sorted pages of a bounded limit that have one)' },
} as const

/**
 * Applies counts, `fields=` and cursors to a parsed list query. The count runs on the very filter the
 * page is read with (scope included, before the cursor's position); a cursor only narrows that filter.
 * `within` is what the list is read inside of besides its filter (an embedded list's parent): a cursor
 * is bound to it too, so it never continues another parent's list. `hidden`: the fields the caller's
 * role does not see (access/compile-access.ts), never read.
 */
export async function prepareListPage(
  spec: ListPageSpec,
  { request, reply }: Caller,
  parsed: ListQuery,
  raw: ListQueryString,
  within?: ListQuery['filter'],
  hidden?: ReadonlySet<string>
): Promise<PreparedPage> {
  const fields = spec.selectFields(request, raw.fields, hidden)
  // Counts and the next page's Link are response headers: a caller without a reply (the service API) gets neither.
  if (reply !== undefined) await answerTotalCount(request, reply, parsed.filter, spec.count, spec.estimatedCount)
  const cursors = spec.cursors
  if (cursors === undefined) return { query: { ...parsed, fields } }
  const sort: SortSpec = parsed.sort ?? { path: 'id', direction: 1 }
  // The service API's requests may come from no route of their own.
  const binding = cursorBinding(request.routeOptions?.url ?? '', allOf(within, parsed.filter), sort)
  let query: ListQuery = { ...parsed, sort, fields }
  if (raw.cursor !== undefined) {
    if (raw.skip !== undefined) throw invalidCursor('cursor and skip cannot be combined: the cursor already says where the page starts')
    // One flat AND, so a planner sees the cursor's bound among the top-level conditions.
    const after = afterKey(sort, cursors.seal.open(binding, raw.cursor))
    query.filter = allOf(parsed.filter, ...(after.kind === 'and' ? after.items : [after]))
  } else if (parsed.sort === undefined) {
    // Unsorted pages have no order to continue: no Link (sort_by=id pages by the identifier).
    return { query: { ...parsed, fields } }
  }
  const limit = query.limit
  if (reply === undefined || limit === undefined || limit > STREAM_ABOVE || !keysetSortable(sort, cursors.typed)) return { query }
  // The next cursor needs the sort field of the last document, even when `fields=` leaves it out.
  const top = sort.path.split('.')[0]!
  const extra = fields !== undefined && !fields.includes(top) ? top : undefined
  if (extra !== undefined) query = { ...query, fields: [...fields!, extra] }
  return {
    query,
    onPage(page, pageReply) {
      if (page.length > limit) {
        pageReply.header('link', `<${nextPageUrl(request.url, cursors.seal.seal(binding, pageKeyOf(page[limit - 1]!, sort)))}>; rel="next"`)
      }
      const shown = page.slice(0, limit)
      if (extra !== undefined) for (const doc of shown) delete doc[extra]
      return shown
    },
  }
}

/** The request's own URL with the next cursor (and without skip): every other parameter as it was sent. */
function nextPageUrl(url: string, cursor: string): string {
  const at = url.indexOf('?')
  const params = new URLSearchParams(at === -1 ? '' : url.slice(at + 1))
  params.delete('cursor')
  params.delete('skip')
  params.set('cursor', cursor)
  return `${at === -1 ? url : url.slice(0, at)}?${params.toString()}`
}
