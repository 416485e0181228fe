import { EventEmitter } from 'node:events'
import { MongoAPIError } from 'mongodb'
import { aggregateDocuments } from '../aggregate/aggregate-documents.js'
import { inForm, type PromoteOptions, valueFormOf } from '../bson/value-form.js'
import { changeDocument, type ImageOptions, seqOfToken, tokenOf } from '../changes/change-document.js'
import { decodeChange } from '../changes/change-entry.js'
import type { ChangeFeed, ChangeSource } from '../changes/change-feed.js'
import type { Document } from '../document.js'
import { changeStreamFatalError, changeStreamHistoryLostError, invalidArgumentError } from '../errors.js'

/** The options of `collection.watch()` the engine honours (as the driver names them). */
export interface WatchOptions extends ImageOptions, PromoteOptions {
  /** Starts right after the change this token (an event's `_id`) names. */
  resumeAfter?: unknown
  /** As `resumeAfter` (the engine has no invalidate events to start after). */
  startAfter?: unknown
  /** Changes read from the log per step. */
  batchSize?: number | undefined
}

/** Stages a change stream's pipeline may hold after `$changeStream`, as on a server. */
const ALLOWED_STAGES = new Set(['$match', '$project', '$addFields', '$set', '$unset', '$replaceRoot', '$replaceWith', '$redact'])

/** Log entries read per step when `batchSize` is not given. */
const DEFAULT_BATCH = 256
/**
 * Bytes of log entries read per step, whatever `batchSize` says. They are what a stream holds for
 * changes not handed out yet, and what one wire batch carries (the wire server cuts its other
 * batches at about 1 MiB too): 256 changes of large documents were tens of MiB, past what a reply
 * may be. A larger entry is read alone.
 */
const STEP_BYTES = 1024 * 1024

/**
 * A change stream over one collection, shaped as the driver's `ChangeStream`: `next()`,
 * `tryNext()`, `hasNext()`, async iteration, `close()`, `resumeToken`, and `'change'` events
 * once a listener is added. It reads the engine's change log (change-log-store.ts) past its
 * position, a step (at most STEP_BYTES) at a time, so it holds no memory for changes it has not
 * read yet: a reader that stops costs its position and one step, and resumes where it was while
 * the log keeps that change.
 */
export class EmbeddedChangeStream extends EventEmitter {
  readonly #source: ChangeSource
  readonly #pipeline: Document[]
  readonly #options: WatchOptions
  readonly #batch: number
  /** The number of the last log entry read (changes of other collections included). */
  #position: number
  readonly #pending: [seq: number, event: Document][] = []
  #token: { _data: string }
  #closed = false
  #waiting: (() => void) | undefined
  #emitting = false

  constructor(source: ChangeSource, pipeline: Document[] = [], options: WatchOptions = {}) {
    super()
    checkPipeline(pipeline)
    this.#source = source
    this.#pipeline = pipeline
    this.#options = options
    this.#batch = options.batchSize !== undefined && options.batchSize > 0 ? options.batchSize : DEFAULT_BATCH
    this.#position = startOf(source.feed, options.resumeAfter ?? options.startAfter)
    this.#token = tokenOf(this.#position)
    this.on('newListener', (name) => {
      if (name === 'change') queueMicrotask(() => void this.#emitChanges())
    })
  }

  /** The token to resume after the last event handed out (or, before any, where the stream started). */
  get resumeToken(): { _data: string } {
    return this.#token
  }

  get closed(): boolean {
    return this.#closed
  }

  /** The next change, or null when none is waiting now. */
  async tryNext(): Promise<Document | null> {
    this.#assertOpen()
    this.#fill()
    const event = this.#take()
    // Events leave in the form the driver's read options ask for (value-form.ts); a wire batch (nextBatch) as held.
    return event === null ? null : inForm(event, valueFormOf(this.#options))
  }

  /** Waits for the next change; rejects once the stream (or the engine) is closed. */
  async next(): Promise<Document> {
    for (;;) {
      const found = await this.tryNext()
      if (found) return found
      await this.#nextCommit()
    }
  }

  async hasNext(): Promise<boolean> {
    for (;;) {
      this.#assertOpen()
      this.#fill()
      if (this.#pending.length > 0) return true
      await this.#nextCommit()
    }
  }

  /**
   * Up to `limit` changes: those waiting now, or, when none is, the first ones to come within
   * `maxWaitMS` (a wire `getMore`'s awaitData). Empty when none came in time.
   */
  async nextBatch(limit: number, maxWaitMS: number): Promise<Document[]> {
    this.#assertOpen()
    this.#fill()
    if (this.#pending.length === 0 && maxWaitMS > 0) {
      const timer = setTimeout(() => this.#waiting?.(), maxWaitMS)
      try {
        await this.#nextCommit()
      } finally {
        clearTimeout(timer)
      }
      if (this.#closed) return []
      this.#fill()
    }
    const batch: Document[] = []
    while (batch.length < limit) {
      const event = this.#take()
      if (!event) break
      batch.push(event)
    }
    return batch
  }

  /** The position after every change read so far, handed out or not (a wire batch's postBatchResumeToken). */
  get postBatchResumeToken(): { _data: string } {
    return this.#pending.length > 0 ? this.#token : tokenOf(this.#position)
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#pending.length = 0
    this.#waiting?.()
    this.emit('close')
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Document, void> {
    try {
      while (!this.#closed && !this.#source.feed.closed) {
        const event = await this.next().catch((error: unknown) => {
          if (this.#closed || this.#source.feed.closed) return undefined
          throw error
        })
        if (event === undefined) return
        yield event
      }
    } finally {
      await this.close()
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new MongoAPIError('ChangeStream is closed')
    if (this.#source.feed.closed) throw new MongoAPIError('ChangeStream is closed: the engine was closed')
  }

  /** Reads log entries past the position until one of this collection passes the pipeline (or the log ends). */
  #fill(): void {
    if (this.#pending.length > 0) return
    const { feed, storageName, ns } = this.#source
    this.#checkRetained()
    for (;;) {
      const entries = feed.store.read(this.#position, this.#batch, STEP_BYTES)
      for (const [seq, bytes] of entries) {
        this.#position = seq
        const entry = decodeChange(bytes)
        if (entry.c !== storageName) continue
        const event = this.#shape(changeDocument(seq, entry, ns, this.#options))
        if (event) this.#pending.push([seq, event])
      }
      if (this.#pending.length > 0 || entries.length === 0) return
    }
  }

  /** A stream that fell behind what the log keeps has lost changes: it fails rather than skip them. */
  #checkRetained(): void {
    const { trimmed } = this.#source.feed.store.bounds()
    if (this.#position < trimmed) {
      this.#closed = true
      throw changeStreamHistoryLostError(`Resume of change stream was not possible, as the resume point may no longer be in the change log (resume token ${tokenOf(this.#position)._data}, oldest kept ${tokenOf(trimmed + 1)._data})`)
    }
  }

  #shape(event: Document): Document | undefined {
    if (this.#pipeline.length === 0) return event
    return aggregateDocuments([event], this.#pipeline, () => {
      throw invalidArgumentError('A change stream pipeline may not read other collections')
    })[0]
  }

  #take(): Document | null {
    const next = this.#pending.shift()
    if (!next) return null
    this.#token = next[1]['_id'] as { _data: string }
    return next[1]
  }

  /** Resolves at the next durable write of the engine, at close, or when `#waiting` is called. */
  async #nextCommit(): Promise<void> {
    this.#assertOpen()
    const wait = this.#source.feed.nextCommit()
    this.#waiting = wait.cancel
    try {
      await wait.done
    } finally {
      this.#waiting = undefined
    }
  }

  /** With a `'change'` listener, every change is emitted as it comes (an error as `'error'`), until close. */
  async #emitChanges(): Promise<void> {
    if (this.#emitting) return
    this.#emitting = true
    try {
      while (!this.#closed && !this.#source.feed.closed && this.listenerCount('change') > 0) {
        this.emit('change', await this.next())
      }
    } catch (error) {
      if (!this.#closed && !this.#source.feed.closed) this.emit('error', error)
    } finally {
      this.#emitting = false
    }
  }
}

function checkPipeline(pipeline: Document[]): void {
  if (!Array.isArray(pipeline)) throw invalidArgumentError('A change stream pipeline must be an array of stages')
  for (const stage of pipeline) {
    const name = Object.keys(stage ?? {})[0]
    if (name === undefined || !ALLOWED_STAGES.has(name)) {
      throw invalidArgumentError(`${name ?? 'An empty stage'} is not permitted in a $changeStream pipeline (allowed: ${[...ALLOWED_STAGES].join(', ')})`)
    }
  }
}

/** Where a stream starts: after the resumed change, or after the last committed one. */
function startOf(feed: ChangeFeed, token: unknown): number {
  const { trimmed, last } = feed.store.bounds()
  if (token === undefined) return last
  const seq = seqOfToken(token)
  if (seq > last) throw changeStreamFatalError(`Resume token ${tokenOf(seq)._data} is past the last change of this engine (${tokenOf(last)._data}): it was not issued here`)
  if (seq < trimmed) {
    throw changeStreamHistoryLostError(`Resume of change stream was not possible, as the resume point may no longer be in the change log (resume token ${tokenOf(seq)._data}, oldest kept ${tokenOf(trimmed + 1)._data})`)
  }
  return seq
}
