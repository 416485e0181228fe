import type { StoreChanges, StoredChange } from '../store/store.js'

/** Changes one subscriber of the hub may have waiting (its populates slow it down): past it, its feed ends. */
const MAX_QUEUED = 10_000

/**
 * One database change stream shared by the router's subscribers that start from now (those with a
 * `Last-Event-ID` read their own, from that point): each change is read and converted once, then
 * handed to every subscriber. Started by the first subscriber, stopped when the last one leaves.
 * A subscriber attached while the stream runs gets every change read after it attached, so nothing
 * acknowledged after its answer's status went out is missed.
 */
export class EventHub {
  readonly #open: () => StoreChanges
  #upstream: Upstream | undefined

  constructor(open: () => StoreChanges) {
    this.#open = open
  }

  /** A feed of the changes from now on; rejects as the database refuses a change stream. */
  async attach(): Promise<StoreChanges> {
    for (;;) {
      let upstream = this.#upstream
      if (upstream === undefined) {
        const started = new Upstream(this.#open(), () => {
          if (this.#upstream === started) this.#upstream = undefined
        })
        this.#upstream = started
        upstream = started
      }
      await upstream.started
      // Its last subscriber may have left while this one waited: then another stream starts.
      const feed = upstream.subscribe()
      if (feed !== undefined) return feed
    }
  }
}

class Upstream {
  readonly started: Promise<void>
  readonly #changes: StoreChanges
  readonly #feeds = new Set<QueuedFeed>()
  readonly #onStop: () => void
  #stopped = false

  constructor(changes: StoreChanges, onStop: () => void) {
    this.#changes = changes
    this.#onStop = onStop
    // The first read tells a database without change streams; a change it finds predates every subscriber.
    this.started = changes.tryNext().then(
      () => {
        void this.#pump()
      },
      (error: unknown) => {
        this.#stop()
        throw error
      }
    )
  }

  subscribe(): QueuedFeed | undefined {
    if (this.#stopped) return undefined
    const feed = new QueuedFeed(() => {
      this.#feeds.delete(feed)
      if (this.#feeds.size === 0) this.#stop()
    })
    this.#feeds.add(feed)
    return feed
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

/** One subscriber's changes from the hub, read as its own change stream would be. */
class QueuedFeed implements StoreChanges {
  readonly #queued: StoredChange[] = []
  readonly #onClose: () => void
  #waiter: { resolve: (change: StoredChange | undefined) => void, reject: (error: unknown) => void } | undefined
  #error: unknown
  #ended = false
  #closed = false

  constructor(onClose: () => void) {
    this.#onClose = onClose
  }

  push(change: StoredChange): void {
    if (this.#ended) return
    if (this.#waiter) {
      const { resolve } = this.#waiter
      this.#waiter = undefined
      resolve(change)
    } else if (this.#queued.length >= MAX_QUEUED) this.end()
    else this.#queued.push(change)
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
    return this.#queued.shift()
  }

  next(): Promise<StoredChange | undefined> {
    const ready = this.#queued.shift()
    if (ready !== undefined) return Promise.resolve(ready)
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
    this.#onClose()
  }
}
