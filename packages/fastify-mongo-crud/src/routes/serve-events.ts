import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccessDecision } from '../access/compile-access.js'
import { EventHeartbeat } from '../core/event-heartbeat.js'
import type { EventStreams } from '../core/event-streams.js'
import { listFilter } from '../core/main-list.js'
import { Pacer } from '../core/pacer.js'
import { type Caller, type RouterContext, withoutHidden } from '../core/router-context.js'
import { credentialsExpiry } from '../credential-expiry.js'
import { badLastEventId, eventsGone, eventsUnsupported, type HTTPException, StoreError } from '../errors.js'
import { firstEvent } from '../first-event.js'
import { partialEvaluate } from '../query/evaluate-filter.js'
import type { Filter } from '../query/filter.js'
import type { Resource } from '../resources/resource.js'
import { DROP } from '../schema/fit-document.js'
import type { StoreChanges, StoredChange, WireDoc } from '../store/store.js'

/** The last event of a feed whose token expired (docs/events.md): its client learns why it ended, and reconnects with a fresh token. */
const TOKEN_EXPIRED = 'event: end\ndata: {"reason":"token expired"}\n\n'
/** The longest wait one timer takes (2^31 - 1 ms, about 24 days): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647

/** What a subscriber refused for too many streams is told to wait before retrying, in seconds. */
const RETRY_AFTER_S = 1
/** A resume token as the engine and MongoDB write it: hex digits. */
const TOKEN = /^[0-9A-Fa-f]{1,1024}$/

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/**
 * GET <prefix>/_events: the router's changes as server-sent events (docs/events.md). What a
 * subscriber sees is decided per change on the document after it (and before it, where the database
 * keeps pre-images): inside the scope and `filters`, it is shown through the output model; one that
 * leaves them arrives as `delete`, one that enters them as `create`. The stream reads the database's
 * change stream only as fast as its client takes the events, so a backlog of any size (a reconnect's,
 * a burst of writes) goes out at the client's pace; a client that stopped reading is dropped
 * (event-heartbeat.ts), and a feed opened with a token ends when it expires (credential-expiry.ts).
 */
export function eventsHandler(context: RouterContext, resource: Resource, streams: EventStreams): Handler {
  let warned = false
  // Subscribers of the hub get the same change objects: an event without populates is made once for all
  // the subscribers of one role (what a role does not see differs from another's).
  const made: EventCache = new WeakMap()
  return async (request, reply) => {
    const view = await listFilter(context, request, (request.query as { filters?: string }).filters)
    // A HEAD gets the feed's headers and no stream: its answer carries no body, so a stream would never send it.
    if (request.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send()
    const from = lastEventId(request)
    const release = streams.gate.enter()
    if (release === undefined) {
      const detail = `Too many event streams are open (at most ${streams.gate.max} at once); retry in a moment`
      return reply.code(503).header('retry-after', String(RETRY_AFTER_S)).send({ detail })
    }
    let changes: StoreChanges | undefined
    let first: StoredChange | undefined
    try {
      // Read before the status goes out: a lost resume point or a database without change streams gets its own status.
      const fellBehind = () => request.log.info('event subscriber fell behind the shared change stream: it reads on from its own')
      changes = from === undefined ? await streams.hub.attach(fellBehind) : context.store.changes(from)
      first = await changes.tryNext()
    } catch (error) {
      release()
      await changes?.close()
      const refused = refusal(error)
      if (refused?.statusCode === 501 && !warned) {
        warned = true
        request.log.warn({ collection: context.options.collectionName }, `${refused.detail} (logged once)`)
      }
      throw refused ?? error
    }
    const show = presenterOf(context, resource, { request, reply }, await context.access(request), made)
    await stream(request, reply, { first, changes, view, show, streams, release })
    return reply
  }
}

interface Subscription {
  first: StoredChange | undefined
  changes: StoreChanges
  view: Filter | undefined
  show: Presenter
  streams: EventStreams
  release: () => void
}

/** Writes the events of a subscription until its client leaves, stops reading, or the app closes. */
async function stream(request: FastifyRequest, reply: FastifyReply, subscription: Subscription): Promise<void> {
  const { changes, view, show, streams, release } = subscription
  const out = reply.raw
  reply.hijack()
  out.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    // nginx would otherwise hold events back in its buffer.
    'x-accel-buffering': 'no',
  })
  out.write(': connected\n\n')
  let open = true
  const end = () => {
    if (!open) return
    open = false
    out.end()
  }
  const forget = streams.opened(end)
  // A feed opened with a token ends when the token expires, its last event saying so.
  const unschedule = atExpiry(credentialsExpiry(request), () => {
    if (!open) return
    out.write(TOKEN_EXPIRED)
    end()
  })
  const heartbeat = new EventHeartbeat(out, () => {
    request.log.info({ unsent: out.writableLength }, 'event subscriber dropped: it stopped reading')
    out.destroy()
  })
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    open = false
    heartbeat.stop()
    unschedule()
    forget()
    release()
    void changes.close()
  }
  out.once('close', close)
  // The client may have left while the feed was being opened (the driver's change stream takes a moment):
  // its close was emitted before the listener, and the subscription would otherwise stay open for good.
  if (out.destroyed || out.socket === null || out.socket.destroyed) close()
  const pacer = new Pacer()
  try {
    for (let change = subscription.first ?? (await changes.next()); change !== undefined && open; change = await changes.next()) {
      const event = await eventOf(change, view, show)
      if (event === undefined) {
        // Changes this subscriber may not see write nothing: a long run of them still lets others run.
        await pacer.pace()
        continue
      }
      // Once the connection holds a high-water mark's worth, the next change is read when it has taken
      // it: the rest waits in the database, not here. (Written all at once, a backlog stayed in memory
      // whole, and none of it left before the loop paused: a response's writes are held until then.)
      // The events written before that, in one turn, leave in one system call: pausing after each
      // (the pacer) sent every event of a burst alone, four times the calls at 1,000 subscribers.
      if (open && !out.write(event, heartbeat.taken)) await drained(out)
    }
    end()
  } catch (error) {
    if (error instanceof StoreError && error.code === 'FMC_ERR_STORE_HISTORY_LOST') {
      // It read slower than the database trims its log: reconnecting with Last-Event-ID, it is told 410.
      request.log.info('event subscriber ended: the database no longer keeps the changes it has not read')
      end()
      return
    }
    request.log.error({ err: error }, 'event stream failed after its status was sent; the response was cut short')
    out.destroy()
  }
}

/** Runs `expire` at `at` (milliseconds since the epoch; never when undefined, at once when past); returns what cancels it. */
function atExpiry(at: number | undefined, expire: () => void): () => void {
  let timer: NodeJS.Timeout | undefined
  const wait = () => {
    const left = at! - Date.now()
    if (left <= 0) expire()
    else timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS))
  }
  if (at !== undefined) wait()
  return () => clearTimeout(timer)
}

/** Resolves once `out` has taken what it held (or closed). */
function drained(out: ServerResponse): Promise<void> {
  return firstEvent(out, ['drain', 'close'])
}

/**
 * The event of one change for this subscriber, or undefined when it may not see it. Without a
 * pre-image (MongoDB without changeStreamPreAndPostImages), a change leaving the view, or a delete,
 * cannot be told apart from one that was never in it: under a scope or filters it is not told.
 */
function eventOf(change: StoredChange, view: Filter | undefined, show: Presenter): Promise<Buffer | undefined> | undefined {
  const inView = (doc: WireDoc | undefined) => (doc === undefined ? undefined : view === undefined || partialEvaluate(view, doc, () => true) === true)
  const after = change.operation === 'delete' ? undefined : inView(change.after)
  const before = view === undefined ? true : inView(change.before)
  if (after === true) return show(change, change.operation === 'insert' || before === false ? 'create' : change.operation)
  // An update whose document was deleted before its lookup: the delete's own event follows.
  if (after === undefined && change.operation !== 'delete') return undefined
  if (before !== true) return undefined
  return show(change, 'delete')
}

function frame(kind: string, token: string, data: string): Buffer {
  return Buffer.from(`event: ${kind}\nid: ${token}\ndata: ${data}\n\n`)
}

/** The bytes of a change's event of a kind for one subscriber, or undefined when its output model drops the document. */
type Presenter = (change: StoredChange, kind: string) => Promise<Buffer | undefined>

/** Events already made for one router's subscribers: per change, per role and kind of event. */
export type EventCache = WeakMap<StoredChange, Map<string, Promise<Buffer | undefined>>>

/**
 * How a change is shown: populated, fitted to the output model (hidden fields never leave), serialized,
 * framed and encoded. Without populates the bytes are the same for every subscriber of a role, and are
 * made once per change, role and kind (`made`), then written to each of them as they are; populates
 * depend on the caller, and get a copy of the document each.
 */
function presenterOf(context: RouterContext, resource: Resource, caller: Caller, access: AccessDecision, made: EventCache): Presenter {
  const { presenter } = resource
  const idKey = context.options.identifierField === '_id' ? 'id' : context.options.identifierField
  const present = async (change: StoredChange, kind: string): Promise<Buffer | undefined> => {
    // Told by what the item routes take: without the document before it (MongoDB without pre-images), a delete has only its `_id`.
    if (kind === 'delete') return frame(kind, change.token, `{"id":${JSON.stringify((change.after ?? change.before)?.[idKey] ?? change.id)}}`)
    const doc = change.after!
    const [populated] = presenter.populate ? await presenter.populate([structuredClone(doc)], caller) : [doc]
    const fitted = presenter.fit(withoutHidden(populated!, access.hidden), caller.request)
    if (fitted === DROP) return undefined
    return frame(kind, change.token, `{"id":${JSON.stringify(doc[idKey] ?? null)},"document":${presenter.serialize(fitted)}}`)
  }
  if (presenter.populate) return present
  const role = `${access.role ?? ''}\0`
  return (change, kind) => {
    let events = made.get(change)
    if (events === undefined) {
      events = new Map()
      made.set(change, events)
    }
    const key = role + kind
    let event = events.get(key)
    if (event === undefined) {
      event = present(change, kind)
      events.set(key, event)
    }
    return event
  }
}

/** The `Last-Event-ID` to resume after, checked; undefined to start from now. */
function lastEventId(request: FastifyRequest): string | undefined {
  const raw = request.headers['last-event-id']
  if (raw === undefined || raw === '') return undefined
  const value = Array.isArray(raw) ? raw[0]! : raw
  if (!TOKEN.test(value)) throw badLastEventId(`Last-Event-ID must be the id of an event of this stream, got ${JSON.stringify(value.slice(0, 64))}`)
  return value
}

/** The answer to a change stream the database refused before the first event. */
function refusal(error: unknown): HTTPException | undefined {
  if (!(error instanceof StoreError)) return undefined
  switch (error.code) {
    case 'FMC_ERR_STORE_HISTORY_LOST':
      return eventsGone()
    case 'FMC_ERR_STORE_BAD_RESUME_TOKEN':
      return badLastEventId('Last-Event-ID is not the id of an event of this stream')
    case 'FMC_ERR_STORE_NO_CHANGE_STREAMS':
      return eventsUnsupported()
    default:
      return undefined
  }
}
