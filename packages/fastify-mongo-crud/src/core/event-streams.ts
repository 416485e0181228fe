import type { StoreChanges } from '../store/store.js'
import { EventHub } from './event-hub.js'
import type { RouterContext } from './router-context.js'
import { StreamGate } from './stream-gate.js'

/** Subscribers of one router's `_events` at once, unless `maxStreams` says otherwise (docs/events.md). */
export const DEFAULT_MAX_EVENT_STREAMS = 1000

/**
 * The `_events` streams of one router: the ceiling of their number (a StreamGate, as streamed lists
 * have), the change stream they share (event-hub.ts), and each open one's `end`, so that closing the app ends every stream (an open response
 * would otherwise keep the server from closing).
 */
export class EventStreams {
  readonly gate: StreamGate
  /** The database change stream shared by the subscribers that start from now. */
  readonly hub: EventHub
  readonly #open = new Set<() => void>()

  constructor(max: number, changes: (from: string | undefined) => StoreChanges) {
    this.gate = new StreamGate(max, 0)
    this.hub = new EventHub(changes)
  }

  /** Registers an open stream's `end`; returns what forgets it. */
  opened(end: () => void): () => void {
    this.#open.add(end)
    return () => this.#open.delete(end)
  }

  closeAll(): void {
    for (const end of [...this.#open]) end()
  }
}

const byRouter = new WeakMap<RouterContext, EventStreams>()

/** The event streams of one router, made on first use. */
export function eventStreamsOf(context: RouterContext): EventStreams {
  let found = byRouter.get(context)
  if (!found) {
    found = new EventStreams(context.options.maxStreams ?? DEFAULT_MAX_EVENT_STREAMS, (from) => context.store.changes(from))
    byRouter.set(context, found)
  }
  return found
}
