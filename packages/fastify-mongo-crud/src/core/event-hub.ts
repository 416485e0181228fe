import type { StoreChanges, StoredChange } from '../store/store.js'

/**
 * Bytes of changes (their documents' JSON) one subscriber of the hub may have waiting, because its
 * client reads slower than changes come (a burst of writes, a slow link, populates): past them, it
 * leaves the hub and reads on from a change stream of its own (QueuedFeed).
 */
const MAX_QUEUED_BYTES = 1024 * 1024

/**
 * One database change stream shared by the router's subscribers that start from now (those with a
 * `Last-Event-ID` read their own, from that point): each change is read and converted once, then
 * handed to every subscriber. Started by the first subscriber, stopped when the last one leaves.
 * A subscriber attached while the stream runs gets every change read after it attached, so nothing
 * acknowledged after its answer's status went out is missed.
 */
export class EventHub {
  /** The collection's change stream from a resume token, or from now. */
  readonly #open: (from: string | undefined) => StoreChanges
  #upstream: Upstream | undefined

  constructor(open: (from: string | undefined) => StoreChanges) {
    this.#open = open
  }

  /**
   * A feed of the changes from now on; rejects as the database refuses a change stream. `fellBehind`
   * is called if it leaves the hub for a stream of its own (QueuedFeed).
   */
  async attach(fellBehind: () => void = () => {}): Promise<StoreChanges> {
    for (;;) {
      let upstream = this.#upstream
      if (upstream === undefined) {
        const started = new Upstream(this.#open, () => {
          if (this.#upstream === started) this.#upstream = undefined
        })
        this.#upstream = started
        upstream = started
      }
      await upstream.started
      // Its last subscriber may have left while this one waited: then another stream starts.
      const feed = upstream.subscribe(fellBehind)
      if (feed !== undefined) return feed
    }
  }
}

class Upstream {
  readonly started: Promise<void>
  readonly #open: (from: string | undefined) => StoreChanges
  readonly #changes: StoreChanges
  readonly #feeds = new Set<QueuedFeed>()
  readonly #onStop: () => void
  /** The size of each change some subscriber queued: measured once, whoever queues it after. */
  readonly #sizes = new WeakMap<StoredChange, number>()
  #stopped = false

  constructor(open: (from: string | undefined) => StoreChanges, onStop: () => void) {
    this.#open = open
    this.#changes = open(undefined)
    this.#onStop = onStop
    // The first read tells a database without change streams; a change it finds predates every subscriber.
    this.started = this.#changes.tryNext().then(
      () => {
        void this.#pump()
      },
      (error: unknown) => {
        this.#stop()
        throw error
      }
    )
  }

  subscribe(fellBehind: () => void): QueuedFeed | undefined {
    if (this.#stopped) return undefined
    const feed = new QueuedFeed({
      leave: () => {
        if (this.#feeds.delete(feed) && this.#feeds.size === 0) this.#stop()
      },
      resume: (after) => {
        fellBehind()
        return this.#open(after)
      },
      sizeOf: (change) => this.#sizeOf(change),
    })
    this.#feeds.add(feed)
    return feed
  }

  #sizeOf(change: StoredChange): number {
    let size = this.#sizes.get(change)
    if (size === undefined) {
      size = jsonLength(change.after) + jsonLength(change.before)
      this.#sizes.set(change, size)
    }
    return size
  }

  async #pump(): Promise<void> {
    try {
      for (let change = await this.#changes.next(); change !== undefined && !this.#stopped; change = await this.#changes.next()) {
        for (const feed of this.#feeds) feed.push(change)
      }
      for (const feed of this.#feeds) feed.end()
    } catch (error) {
      for (const feed of this.#feeds) feed.fail(error)
    } finally {
      this.#stop()
    }
  }

  #stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    this.#onStop()
    void this.#changes.close()
  }
}

/** What a feed asks of the hub that handed it out. */
interface HubLink {
  /** Hands it no more changes (the hub's stream stops with its last subscriber). */
  leave(): void
  /** A change stream of its own, resumed right after `after` (its subscriber fell behind). */
  resume(after: string): StoreChanges
  sizeOf(change: StoredChange): number
}

/**
 * One subscriber's changes from the hub, read as its own change stream would be. The hub hands each
 * change to every subscriber at once; those its subscriber has not read yet wait here, up to
 * MAX_QUEUED_BYTES. Past it, the feed leaves the hub for a change stream of its own, resumed right
 * after the last change that waits here, and read once those are: the database keeps what a slow
 * subscriber has not read, not the server, and the others are never held back for it.
 */
class QueuedFeed implements StoreChanges {
  readonly #queued: StoredChange[] = []
  readonly #hub: HubLink
  #queuedBytes = 0
  /** Once it left the hub for falling behind: its own stream. */
  #own: StoreChanges | undefined
  #waiter: { resolve: (change: StoredChange | undefined) => void, reject: (error: unknown) => void } | undefined
  #error: unknown
  #ended = false
  #closed = false

  constructor(hub: HubLink) {
    this.#hub = hub
  }

  push(change: StoredChange): void {
    if (this.#ended || this.#own !== undefined) return
    if (this.#waiter) {
      const { resolve } = this.#waiter
      this.#waiter = undefined
      resolve(change)
      return
    }
    this.#queued.push(change)
    this.#queuedBytes += this.#hub.sizeOf(change)
    if (this.#queuedBytes > MAX_QUEUED_BYTES) {
      this.#own = this.#hub.resume(change.token)
      this.#hub.leave()
    }
  }

  end(): void {
    this.#ended = true
    this.#queued.length = 0
    const waiter = this.#waiter
    this.#waiter = undefined
    waiter?.resolve(undefined)
  }

  fail(error: unknown): void {
    this.#error = error
    const waiter = this.#waiter
    this.#waiter = undefined
    this.end()
    waiter?.reject(error)
  }

  async tryNext(): Promise<StoredChange | undefined> {
    return this.#take() ?? (this.#closed ? undefined : this.#own?.tryNext())
  }

  next(): Promise<StoredChange | undefined> {
    const ready = this.#take()
    if (ready !== undefined) return Promise.resolve(ready)
    if (this.#own !== undefined && !this.#closed) return this.#own.next()
    if (this.#error !== undefined) return Promise.reject(this.#error)
    if (this.#ended) return Promise.resolve(undefined)
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject }
    })
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.end()
    this.#hub.leave()
    await this.#own?.close()
  }

  #take(): StoredChange | undefined {
    const change = this.#queued.shift()
    if (change !== undefined) this.#queuedBytes -= this.#hub.sizeOf(change)
    return change
  }
}

/** The length of a document's JSON, as an event would carry it (0 for none). */
function jsonLength(doc: unknown): number {
  return doc === undefined ? 0 : JSON.stringify(doc).length
}
