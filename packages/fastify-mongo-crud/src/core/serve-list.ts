import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ListQuery } from '../query/list-query.js'
import { DROP } from '../schema/fit-document.js'
import type { DocumentFitter } from '../schema/fit-response.js'
import type { CollectionStore, WireDoc } from '../store/store.js'
import { ArrayBytes } from './array-bytes.js'
import { Pacer } from './pacer.js'
import type { Caller } from './router-context.js'
import type { StreamGate } from './stream-gate.js'

/** Pages up to this size are answered in one piece; larger or unbounded lists are streamed. */
export const STREAM_ABOVE = 1000
/**
 * Lists with populates are populated, fitted and serialized in batches of at most this many documents,
 * read as they are shown: what a large populated page holds at once is one batch's documents.
 */
const POPULATE_BATCH = 100
/**
 * A batch also ends once its documents reference this many others (the ids of their populated fields):
 * a batch's populated documents are held until they are shown, and 100 documents naming 100 ids each
 * made batches of 10,000. What eight such pages at once kept in flight outlived V8's young generation:
 * most of what the populates made was promoted to the old one and piled up there as garbage, some
 * 400 MB of it (bench/event-loop.ts; batches of 1,000 references: about 130 MB, of 500: about 90 MB).
 */
const POPULATE_REFERENCES = 500
/** Streamed text leaves in chunks of about this many characters (a few documents, or one large one). */
const STREAM_CHUNK_CHARS = 64 * 1024
/** The same for populated lists, gathered as bytes (array-bytes.ts). */
const STREAM_CHUNK_BYTES = STREAM_CHUNK_CHARS
/**
 * A populated page whose text grows past this many bytes is streamed from there on, as it is
 * populated, at the pace the client reads: holding the whole answer (a page of 1,000 documents
 * referencing 100 each is some 15 MB) for each request at once is what filled the memory.
 */
const ONE_PIECE_BYTES = 1024 * 1024
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
  /** With `populate`: how many references it reads for a document, which bound its batches. */
  readonly references?: ((doc: WireDoc) => number) | undefined
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
    // Read through a cursor as it is populated, never held whole (1,000 documents naming 100 ids each hold
    // 100,000). A page with a next page's Link (`onPage`) needs all of it before the headers go out.
    if (presenter.populate !== undefined && onPage === undefined) return sendPopulatedPage(request, reply, source.list(query), presenter, streams.idleTimeoutMs)
    // `onPage` gets one document more than the page: whether it exists tells that another page follows.
    const read = await source.find(onPage === undefined ? query : { ...query, limit: query.limit + 1 })
    const page = onPage === undefined ? read : onPage(read, reply)
    if (presenter.populate === undefined) return reply.type(JSON_TYPE).send(`[${showAll(page, presenter, request)}]`)
    return sendPopulatedPage(request, reply, page, presenter, streams.idleTimeoutMs)
  }
  return streamList(request, reply, source.list(query), presenter, streams)
}

/**
 * A populated page: in one piece while its text stays under ONE_PIECE_BYTES (a failure before then still
 * gets its error status), streamed past it, each document shown when the client has taken the ones
 * before (a failure from then on cuts the answer short, as a streamed list's does). The text held until
 * then is kept as bytes (array-bytes.ts).
 */
async function sendPopulatedPage(
  request: FastifyRequest,
  reply: FastifyReply,
  docs: WireDoc[] | AsyncIterable<WireDoc>,
  presenter: ListPresenter,
  idleTimeoutMs: number
): Promise<FastifyReply> {
  const shown = showPopulated(docs, presenter, request, reply)
  // A reply closed before its stream is read never runs streamRest's finally: the page's cursor is closed here.
  reply.raw.once('close', () => void shown.return(undefined))
  const array = new ArrayBytes()
  for (let next = await shown.next(); next.done !== true; next = await shown.next()) {
    array.add(next.value)
    if (array.bytes >= ONE_PIECE_BYTES) return reply.type(JSON_TYPE).send(Readable.from(streamRest(array, shown, request, reply, idleTimeoutMs, presenter.collection), { objectMode: false }))
  }
  array.end()
  return reply.type(JSON_TYPE).send(array.take())
}

/** The text shown so far, then the rest of the page in chunks, read no further ahead than the client. */
async function* streamRest(array: ArrayBytes, shown: AsyncGenerator<string>, request: FastifyRequest, reply: FastifyReply, idleTimeoutMs: number, collection: string): AsyncGenerator<Buffer> {
  const idle = new IdleTimer(idleTimeoutMs, () => reply.raw.destroy())
  try {
    yield* idle.around(array.take())
    yield* populatedChunks(array, shown, idle)
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
 * Documents with populates, each yielded serialized (a dropped one is not): populated a batch at a time
 * (`batches`), fitted and serialized letting the event loop run between slices. Documents are read as
 * batches need them, and an array is taken over (each document leaves it as it is read): what is held
 * at once is one batch's populated documents, and an array's documents not yet reached.
 */
async function* showPopulated(docs: WireDoc[] | AsyncIterable<WireDoc>, presenter: ListPresenter, request: FastifyRequest, reply: FastifyReply): AsyncGenerator<string> {
  const populate = presenter.populate!
  const pacer = new Pacer()
  for await (const batch of batches(Array.isArray(docs) ? takeAll(docs) : docs, presenter.references)) {
    const populated = await populate(batch, { request, reply })
    for (let doc = populated.shift(); doc !== undefined; doc = populated.shift()) {
      const shown = showAll([doc], presenter, request)
      if (shown !== '') yield shown
      await pacer.pace()
    }
  }
}

/** `docs` in batches of at most POPULATE_BATCH documents, each closed once it references POPULATE_REFERENCES others. */
async function* batches(docs: Iterable<WireDoc> | AsyncIterable<WireDoc>, references: ListPresenter['references']): AsyncGenerator<WireDoc[]> {
  let batch: WireDoc[] = []
  let referenced = 0
  for await (const doc of docs) {
    batch.push(doc)
    referenced += references?.(doc) ?? 0
    if (batch.length < POPULATE_BATCH && referenced < POPULATE_REFERENCES) continue
    yield batch
    batch = []
    referenced = 0
  }
  if (batch.length > 0) yield batch
}

/** The documents of an array, each removed from it as it is read. */
function* takeAll(docs: WireDoc[]): Generator<WireDoc> {
  for (let doc = docs.shift(); doc !== undefined; doc = docs.shift()) yield doc
}

/** The rest of a populated array: each document added to `array` as it is shown, sent in chunks, then `]`. */
async function* populatedChunks(array: ArrayBytes, shown: AsyncIterable<string>, idle: IdleTimer): AsyncGenerator<Buffer> {
  for await (const doc of shown) {
    array.add(doc)
    if (array.bytes >= STREAM_CHUNK_BYTES) yield* idle.around(array.take())
  }
  array.end()
  yield* idle.around(array.take())
}

/** The documents of a cursor whose first step was already taken. */
async function* fromHead(head: IteratorResult<WireDoc>, iterator: AsyncIterator<WireDoc>): AsyncGenerator<WireDoc> {
  for (let next = head; next.done !== true; next = await iterator.next()) yield next.value
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
  async function* chunks(): AsyncGenerator<string | Buffer> {
    started = true
    let text = '['
    let first = true
    function add(shown: string): void {
      if (shown === '') return
      text += first ? shown : `,${shown}`
      first = false
    }
    /** The text so far once it makes a chunk. */
    function* whenFull(): Generator<string> {
      if (text.length < STREAM_CHUNK_CHARS) return
      yield* idle.around(text)
      text = ''
    }
    try {
      if (presenter.populate !== undefined) {
        // Populates run once per batch, with one query per field (and per 5,000 ids).
        yield* populatedChunks(new ArrayBytes(), showPopulated(fromHead(head, iterator), presenter, request, reply), idle)
        return
      }
      for (let next = head; next.done !== true; next = await iterator.next()) {
        add(showAll([next.value], presenter, request))
        yield* whenFull()
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
  *around<T extends string | Buffer>(chunk: T): Generator<T> {
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
