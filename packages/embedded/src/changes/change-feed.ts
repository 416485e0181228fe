import type { ChangeLogStore } from '../storage/change-log-store.js'
import type { Storage } from '../storage/storage.js'
import type { ChangeScope } from './change-scope.js'

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

/** Where a stream reads: the engine's feed, what it watches, and what it asks the engine of the collections it meets. */
export interface ChangeSource {
  feed: ChangeFeed
  scope: ChangeScope
  /** The namespace of a collection of the engine, by its storage name. */
  namespaceOf(storageName: string): { db: string, coll: string }
  /** Whether a collection's events may carry the documents before and after the change (changes/change-document.ts). */
  keepsImages(storageName: string): boolean
}

/**
 * Whether a collection's change events may carry its documents before and after each change: the
 * engine logs both always, so yes unless `collMod` turned `changeStreamPreAndPostImages` off, as a
 * collection of MongoDB without them then answers (`whenAvailable`: null, `required`: an error).
 */
export function keepsImages(options: Record<string, unknown>): boolean {
  return (options['changeStreamPreAndPostImages'] as { enabled?: unknown } | undefined)?.enabled !== false
}
