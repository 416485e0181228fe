import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { allOf } from '../query/filter.js'
import type { ListQuery, ListQueryString } from '../query/list-query.js'
import { listQuerySchema } from '../query/list-query.js'
import { type FilterContext, parseFilter } from '../query/parse-filter.js'
import { type PageLimits, parsePage } from '../query/parse-page.js'
import { parseSort } from '../query/parse-sort.js'
import { errorRef, validationErrorRef } from '../schema/error-schemas.js'
import type { ShapeNode } from '../schema/model-shape.js'
import type { WireDoc } from '../store/store.js'
import type { RouterContext } from './router-context.js'
import type { StreamGate } from './stream-gate.js'

/** Pages up to this size are answered in one piece; larger or unbounded lists are streamed. */
export const STREAM_ABOVE = 1000
/** Streamed lists with populates are read and populated in batches of this many documents. */
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
    503: { ...errorRef, description: 'Too many lists are being streamed (Retry-After), or the query exceeded its time limit (maxTimeMS)' },
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
      return streamList(request, reply, context.store.list(query), { ...list, streams: context.streams, collection: context.options.collectionName })
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

/** Streamed text leaves in chunks of about this many characters (a few documents, or one large one). */
const STREAM_CHUNK_CHARS = 64 * 1024
/** What a client refused for too many streams is told to wait before retrying, in seconds. */
const STREAM_RETRY_AFTER_S = 1

/** What streamList needs besides the documents: how to write them, and the router's stream limits. */
export interface StreamListOptions extends ListRouteOptions {
  streams: StreamGate
  /** Named in the log when the stream fails half-way. */
  collection: string
}

/**
 * Writes the array as it is read, so memory stays flat however many documents match and a slow
 * client slows the cursor down instead of filling the heap. The first document is read before
 * the status line goes out, so a query the database refuses still gets a proper error status.
 *
 * Past that point a failure cannot change the status: the response is destroyed instead of ended
 * (a chunked answer then lacks its last chunk, which clients report as an error), never closed
 * with `]` as if complete, and the failure is logged. A client that reads nothing for the
 * router's idle timeout is disconnected, and at most `maxStreams` streams run at once (503 past it).
 */
export async function streamList(
  request: FastifyRequest,
  reply: FastifyReply,
  docs: AsyncIterable<WireDoc>,
  list: StreamListOptions
): Promise<FastifyReply> {
  const place = list.streams.enter()
  if (place === undefined) {
    const detail = `Too many lists are being streamed (at most ${list.streams.max} at once); retry in a moment or send a limit of at most ${STREAM_ABOVE}`
    return reply.code(503).header('retry-after', String(STREAM_RETRY_AFTER_S)).send({ detail })
  }
  const release = place
  const iterator = docs[Symbol.asyncIterator]()
  let started = false
  reply.raw.once('close', () => {
    release()
    // A stream destroyed before its first pull never runs the generator's finally: close the cursor here.
    if (!started) void iterator.return?.()
  })
  let head: IteratorResult<WireDoc>
  try {
    head = await iterator.next()
  } catch (error) {
    release()
    throw error
  }
  const idle = new IdleTimer(list.streams.idleTimeoutMs, () => reply.raw.destroy())
  async function* chunks(): AsyncGenerator<string> {
    started = true
    let text = '['
    let first = true
    const batch: WireDoc[] = []
    const transform = list.transformPage
    function add(ready: WireDoc[]): void {
      for (const doc of ready) {
        text += first ? list.serializeItem(doc) : `,${list.serializeItem(doc)}`
        first = false
      }
    }
    try {
      for (let next = head; next.done !== true; next = await iterator.next()) {
        if (transform === undefined) add([next.value])
        else {
          // Populates run once per batch, with one query per field.
          batch.push(next.value)
          if (batch.length >= STREAM_BATCH) add(await transform(batch.splice(0)))
        }
        if (text.length >= STREAM_CHUNK_CHARS) {
          yield* idle.around(text)
          text = ''
        }
      }
      if (batch.length > 0 && transform !== undefined) add(await transform(batch.splice(0)))
      yield* idle.around(`${text}]`)
    } catch (error) {
      request.log.error({ err: error, collection: list.collection }, 'streamed list failed after its status was sent; the response was cut short')
      throw error
    } finally {
      idle.stop()
      release()
      await iterator.return?.()
    }
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(chunks(), { objectMode: false }))
}

/** Runs `onIdle` when a yielded chunk is not taken within `ms`: the client stopped reading. */
class IdleTimer {
  readonly #ms: number
  readonly #onIdle: () => void
  #timer: NodeJS.Timeout | undefined

  constructor(ms: number, onIdle: () => void) {
    this.#ms = ms
    this.#onIdle = onIdle
  }

  /** Yields `chunk`, counting only the time until the consumer asks for more (not our own reads). */
  *around(chunk: string): Generator<string> {
    this.#timer = setTimeout(this.#onIdle, this.#ms)
    try {
      yield chunk
    } finally {
      this.stop()
    }
  }

  stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
