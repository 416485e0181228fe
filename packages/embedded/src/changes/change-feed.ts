import type { ChangeLogStore } from '../storage/change-log-store.js'
import type { Storage } from '../storage/storage.js'

/**
 * What wakes the change streams of one engine: the write path calls `committed` once a write's
 * transaction is durable, and each waiting stream then reads the log past its position. A
 * stream never learns of a change before it is on disk, so what it was told survives a crash.
 */
export class ChangeFeed {
  readonly store: ChangeLogStore
  readonly #waiters = new Set<() => void>()
  #closed = false

  constructor(store: ChangeLogStore) {
    this.store = store
  }

  get closed(): boolean {
    return this.#closed
  }

  committed(): void {
    const waiters = [...this.#waiters]
    this.#waiters.clear()
    for (const wake of waiters) wake()
  }

  /** Resolves at the next commit or close (or `cancel`). */
  nextCommit(): { done: Promise<void>, cancel: () => void } {
    let wake = () => {}
    const done = new Promise<void>((resolve) => {
      wake = resolve
    })
    if (this.#closed) wake()
    else this.#waiters.add(wake)
    return {
      done,
      cancel: () => {
        this.#waiters.delete(wake)
        wake()
      },
    }
  }

  /** The engine closed: every stream ends. */
  close(): void {
    this.#closed = true
    this.committed()
  }
}

const feeds = new WeakMap<ChangeLogStore, ChangeFeed>()

/** The feed of a storage's change log, one per log; undefined for a storage without one. */
export function changeFeedOf(storage: Storage): ChangeFeed | undefined {
  const store = storage.changeLog
  if (!store) return undefined
  let feed = feeds.get(store)
  if (!feed) {
    feed = new ChangeFeed(store)
    feeds.set(store, feed)
  }
  return feed
}

/** Where a stream reads: the engine's feed, and the collection it watches. */
export interface ChangeSource {
  feed: ChangeFeed
  storageName: string
  ns: { db: string, coll: string }
}
