import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ListQuery } from '../query/list-query.js'
import { DROP } from '../schema/fit-document.js'
import type { DocumentFitter } from '../schema/fit-response.js'
import type { CollectionStore, WireDoc } from '../store/store.js'
import { Pacer } from './pacer.js'
import type { Caller } from './router-context.js'
import type { StreamGate } from './stream-gate.js'

/** Pages up to this size are answered in one piece; larger or unbounded lists are streamed. */
export const STREAM_ABOVE = 1000
/**
 * Lists with populates are populated, fitted and serialized in batches of this many documents (each
 * may reference 1,000 others): what a large populated page holds at once is one batch's documents.
 */
const POPULATE_BATCH = 100
/** Streamed text leaves in chunks of about this many characters (a few documents, or one large one). */
const STREAM_CHUNK_CHARS = 64 * 1024
/**
 * A populated page whose text grows past this many characters is streamed from there on, as it is
 * populated, at the pace the client reads: holding the whole answer (a page of 1,000 documents
 * referencing 100 each is some 15 MB) for each request at once is what filled the memory.
 */
const ONE_PIECE_CHARS = 1024 * 1024
/** What a client refused for too many streams is told to wait before retrying, in seconds. */
const STREAM_RETRY_AFTER_S = 1
const JSON_TYPE = 'application/json; charset=utf-8'

/** How a list fetches its documents: a bounded page at once, or any number one by one. */
export type ListSource = Pick<CollectionStore, 'find' | 'list'>

/** How a list shows a stored document: populated, fitted to its output model, serialized. */
export interface ListPresenter {
  /** Named in the log when a stream fails half-way. */
  readonly collection: string
  /** Runs on each page or streamed batch before it is shown (populates: one query per field). */
  readonly populate?: ((docs: WireDoc[], caller: Caller) => Promise<WireDoc[]>) | undefined
  /** Fits a document to the output model, logging what does not fit; DROP when none of it can be served. */
  readonly fit: DocumentFitter
  /** Serializes one fitted document of the output model. */
  readonly serialize: (doc: unknown) => string
}

/**
 * The one list pipeline of main, lookup and embed lists: a bounded page is read at once, a larger
 * or unbounded one is streamed (streamList); either way each document is populated, fitted and
 * serialized here by the same presenter, so the two answers are the same bytes.
 */
export async function serveList(
  request: FastifyRequest,
  reply: FastifyReply,
  query: ListQuery,
  source: ListSource,
  presenter: ListPresenter,
  streams: StreamGate,
  onPage?: (page: WireDoc[], reply: FastifyReply) => WireDoc[]
): Promise<FastifyReply> {
  if (query.limit !== undefined && query.limit <= STREAM_ABOVE) {
    // `onPage` gets one document more than the page: whether it exists tells that another page follows.
    const read = await source.find(onPage === undefined ? query : { ...query, limit: query.limit + 1 })
    const page = onPage === undefined ? read : onPage(read, reply)
    if (presenter.populate === undefined) return reply.type(JSON_TYPE).send(`[${showAll(page, presenter, request)}]`)
    return sendPopulatedPage(request, reply, showPopulated(page, presenter, request, reply), streams.idleTimeoutMs, presenter.collection)
  }
  return streamList(request, reply, source.list(query), presenter, streams)
}

/**
 * A populated page: in one piece while its text stays under ONE_PIECE_CHARS (a failure before then still
 * gets its error status), streamed past it, each document shown when the client has taken the ones
 * before (a failure from then on cuts the answer short, as a streamed list's does).
 */
async function sendPopulatedPage(request: FastifyRequest, reply: FastifyReply, shown: AsyncGenerator<string>, idleTimeoutMs: number, collection: string): Promise<FastifyReply> {
  let text = '['
  for (let next = await shown.next(); next.done !== true; next = await shown.next()) {
    text += text === '[' ? next.value : `,${next.value}`
    if (text.length >= ONE_PIECE_CHARS) return reply.type(JSON_TYPE).send(Readable.from(streamRest(text, shown, request, reply, idleTimeoutMs, collection), { objectMode: false }))
  }
  return reply.type(JSON_TYPE).send(`${text}]`)
}

/** The text shown so far, then the rest of the page in chunks, read no further ahead than the client. */
async function* streamRest(head: string, shown: AsyncGenerator<string>, request: FastifyRequest, reply: FastifyReply, idleTimeoutMs: number, collection: string): AsyncGenerator<string> {
  const idle = new IdleTimer(idleTimeoutMs, () => reply.raw.destroy())
  try {
    yield* idle.around(head)
    let text = ''
    for await (const doc of shown) {
      text += `,${doc}`
      if (text.length >= STREAM_CHUNK_CHARS) {
        yield* idle.around(text)
        text = ''
      }
    }
    yield* idle.around(`${text}]`)
  } catch (error) {
    request.log.error({ err: error, collection }, 'populated page failed after its status was sent; the response was cut short')
    throw error
  } finally {
    idle.stop()
    await shown.return(undefined)
  }
}

/** The documents fitted and serialized, comma-separated; dropped documents leave no trace. */
function showAll(docs: readonly WireDoc[], presenter: ListPresenter, request: FastifyRequest): string {
  let text = ''
  for (const doc of docs) {
    const fitted = presenter.fit(doc, request)
    if (fitted === DROP) continue
    text += text === '' ? presenter.serialize(fitted) : `,${presenter.serialize(fitted)}`
  }
  return text
}

/**
 * Documents with populates, each yielded serialized (a dropped one is not): populated, fitted and
 * serialized a batch at a time, letting the event loop run between slices. It takes `docs` over: each
 * batch leaves the array when it is populated, so what is held at once is one batch's populated documents
 * and the documents not yet reached, never those already shown.
 */
async function* showPopulated(docs: WireDoc[], presenter: ListPresenter, request: FastifyRequest, reply: FastifyReply): AsyncGenerator<string> {
  const populate = presenter.populate!
  const pacer = new Pacer()
  while (docs.length > 0) {
    const batch = await populate(docs.splice(0, POPULATE_BATCH), { request, reply })
    for (let doc = batch.shift(); doc !== undefined; doc = batch.shift()) {
      const shown = showAll([doc], presenter, request)
      if (shown !== '') yield shown
      await pacer.pace()
    }
  }
}

/**
 * Writes the array as it is read, so memory stays flat however many documents match and a slow
 * client slows the cursor down instead of filling the heap. The first document is read before
 * the status line goes out, so a query the database refuses (or a missing parent) still gets a
 * proper error status.
 *
 * Past that point a failure cannot change the status: the response is destroyed instead of ended
 * (a chunked answer then lacks its last chunk, which clients report as an error), never closed
 * with `]` as if complete, and the failure is logged. A client that reads nothing for the
 * router's idle timeout is disconnected, and at most `maxStreams` streams run at once (503 past it).
 */
async function streamList(
  request: FastifyRequest,
  reply: FastifyReply,
  docs: AsyncIterable<WireDoc>,
  presenter: ListPresenter,
  streams: StreamGate
): Promise<FastifyReply> {
  const place = streams.enter()
  if (place === undefined) {
    const detail = `Too many lists are being streamed (at most ${streams.max} at once); retry in a moment or send a limit of at most ${STREAM_ABOVE}`
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
  const idle = new IdleTimer(streams.idleTimeoutMs, () => reply.raw.destroy())
  async function* chunks(): AsyncGenerator<string> {
    started = true
    let text = '['
    let first = true
    const batch: WireDoc[] = []
    const populate = presenter.populate
    function add(shown: string): void {
      if (shown === '') return
      text += first ? shown : `,${shown}`
      first = false
    }
    /** The text so far once it makes a chunk: within a populated batch too, so it leaves as it is shown. */
    function* whenFull(): Generator<string> {
      if (text.length < STREAM_CHUNK_CHARS) return
      yield* idle.around(text)
      text = ''
    }
    try {
      for (let next = head; next.done !== true; next = await iterator.next()) {
        if (populate === undefined) add(showAll([next.value], presenter, request))
        else {
          // Populates run once per batch, with one query per field (and per 5,000 ids).
          batch.push(next.value)
          if (batch.length >= POPULATE_BATCH) {
            for await (const shown of showPopulated(batch.splice(0), presenter, request, reply)) {
              add(shown)
              yield* whenFull()
            }
          }
        }
        yield* whenFull()
      }
      if (batch.length > 0 && populate !== undefined) {
        for await (const shown of showPopulated(batch.splice(0), presenter, request, reply)) {
          add(shown)
          yield* whenFull()
        }
      }
      yield* idle.around(`${text}]`)
    } catch (error) {
      request.log.error({ err: error, collection: presenter.collection }, 'streamed list failed after its status was sent; the response was cut short')
      throw error
    } finally {
      idle.stop()
      release()
      await iterator.return?.()
    }
  }
  return reply.type(JSON_TYPE).send(Readable.from(chunks(), { objectMode: false }))
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
