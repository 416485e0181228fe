import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { allOf } from '../query/filter.js'
import type { ListQuery, ListQueryString } from '../query/list-query.js'
import { listQuerySchema } from '../query/list-query.js'
import { type FilterContext, parseFilter } from '../query/parse-filter.js'
import { type PageLimits, parsePage } from '../query/parse-page.js'
import { parseSort } from '../query/parse-sort.js'
import { validationErrorRef } from '../schema/error-schemas.js'
import type { ShapeNode } from '../schema/model-shape.js'
import type { WireDoc } from '../store/store.js'
import type { RouterContext } from './router-context.js'

/** Pages up to this size are answered in one piece; larger or unbounded lists are streamed. */
export const STREAM_ABOVE = 1000
/** Streamed lists are read, populated and written in batches of this many documents. */
const STREAM_BATCH = 1000

export interface ListRouteOptions {
  /** Serializes one document of the list (the output model), for the streamed answer. */
  serializeItem: (doc: WireDoc) => string
  /** Runs on each page before it is sent (populates). */
  transformPage?: ((docs: WireDoc[]) => Promise<WireDoc[]>) | undefined
}

/** GET <prefix>: filter -> sort -> skip -> limit, as a JSON array. */
export function buildListRoute(context: RouterContext, url: string, list: ListRouteOptions): RouteOptions {
  const { options } = context
  const route = context.routeOptions('GetAll', {
    200: { type: 'array', items: context.refs.read, description: 'The matching documents' },
    422: { ...validationErrorRef, description: 'Invalid query parameters' },
  })
  return {
    method: 'GET',
    url,
    ...route,
    schema: { ...route.schema, summary: `List ${options.collectionName}`, querystring: listQuerySchema },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const query = await parseListQuery(context, request)
      if (query.limit !== undefined && query.limit <= STREAM_ABOVE) {
        const page = await context.store.find(query)
        return list.transformPage === undefined ? page : list.transformPage(page)
      }
      return streamList(reply, context.store.list(query), list)
    },
  }
}

async function parseListQuery(context: RouterContext, request: FastifyRequest): Promise<ListQuery> {
  const query = request.query as ListQueryString
  if (context.options.filterDependency === undefined) return parseClientQuery(query, context.listSpec)
  // With a scope, client filters are ignored (SPEC §4.2 rule 4) unless the router ANDs them with it:
  // either way the scope is never widened.
  if (context.options.filtersUnderScope === 'and') {
    const parsed = parseClientQuery(query, context.listSpec)
    return { ...parsed, filter: allOf(await context.scope(request), parsed.filter) }
  }
  const { filters: _ignored, ...rest } = query
  return { ...parseClientQuery(rest, context.listSpec), filter: await context.scope(request) }
}

/** What a list (main, lookup children or embedded items) lets clients filter, sort and page by. */
export interface ListSpec {
  sortable: ShapeNode
  filterContext: FilterContext
  page: PageLimits
}

export function parseClientQuery(query: ListQueryString, spec: ListSpec): ListQuery {
  const isDocument = spec.filterContext.typed.kind === 'object' && spec.filterContext.typed.isDocument
  const sort = parseSort(query, spec.sortable, isDocument)
  const page = parsePage(query, spec.page)
  return { filter: parseFilter(query.filters, spec.filterContext), sort, ...page }
}

/**
 * Writes the array as it is read, in batches, so memory stays flat however many documents match
 * and a slow client slows the cursor down instead of filling the heap. The first document is read
 * before the status line goes out, so a query the database refuses still gets a proper error status.
 */
export async function streamList(reply: FastifyReply, docs: AsyncIterable<WireDoc>, list: ListRouteOptions): Promise<FastifyReply> {
  const iterator = docs[Symbol.asyncIterator]()
  const head = await iterator.next()
  async function* chunks(): AsyncGenerator<string> {
    let batch: WireDoc[] = []
    let first = true
    async function* flush() {
      const ready = list.transformPage === undefined ? batch : await list.transformPage(batch)
      batch = []
      if (ready.length === 0) return
      const text = ready.map(list.serializeItem).join(',')
      yield first ? text : `,${text}`
      first = false
    }
    yield '['
    try {
      for (let next = head; next.done !== true; next = await iterator.next()) {
        batch.push(next.value)
        if (batch.length >= STREAM_BATCH) yield* flush()
      }
      yield* flush()
    } finally {
      await iterator.return?.()
    }
    yield ']'
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(chunks(), { objectMode: false }))
}
