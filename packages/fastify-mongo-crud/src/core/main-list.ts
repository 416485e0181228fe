import type { FastifyRequest } from 'fastify'
import { allOf, type Filter } from '../query/filter.js'
import type { ListQuery, ListQueryString } from '../query/list-query.js'
import { PageCursors } from '../query/page-cursor.js'
import { parseClientQuery } from '../query/parse-client-query.js'
import { fieldSelector } from '../query/parse-fields.js'
import { parseFilter } from '../query/parse-filter.js'
import type { ListPageSpec } from './list-page.js'
import type { RouterContext } from './router-context.js'

/** Counts, `fields=` and cursors of the main list (list-page.ts). */
export function mainListPage(context: RouterContext): ListPageSpec {
  return {
    count: (filter) => context.store.count(filter),
    estimatedCount: () => context.store.estimatedCount(),
    selectFields: fieldSelector(context.options.modelOut ?? context.options.model),
    cursors: { seal: new PageCursors(context.options.cursorSecret), typed: context.typed },
  }
}

/** The list query of a request, under the router's scope; the service API passes its own `query`. */
export async function parseListQuery(context: RouterContext, request: FastifyRequest, query = request.query as ListQueryString): Promise<ListQuery> {
  const { filters, ...rest } = query
  return { ...parseClientQuery(rest, context.listSpec), filter: await listFilter(context, request, filters) }
}

/** What a list (and its groups and events) reads: the client's `filters` under what the caller may read. */
export async function listFilter(context: RouterContext, request: FastifyRequest, filters: string | undefined): Promise<Filter | undefined> {
  const readable = (await context.access(request)).grant('read')
  // Under a `filterDependency` scope, client filters are ignored (docs/security.md, Row scope) unless the
  // router ANDs them with it: either way what the caller may read is never widened.
  if (context.options.filterDependency !== undefined && context.options.filtersUnderScope !== 'and') return readable
  return allOf(readable, parseFilter(filters, context.filterContext))
}
