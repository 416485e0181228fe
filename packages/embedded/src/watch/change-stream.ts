import { EventEmitter } from 'node:events'
import { MongoAPIError, Timestamp } from 'mongodb'
import { aggregateDocuments } from '../aggregate/aggregate-documents.js'
import { inForm, type PromoteOptions, valueFormOf } from '../bson/value-form.js'
import { changeDocument, type ImageOptions, invalidateDocument, readToken, tokenOf } from '../changes/change-document.js'
import { decodeChange } from '../changes/change-entry.js'
import type { ChangeFeed, ChangeSource } from '../changes/change-feed.js'
import { reachOf } from '../changes/change-scope.js'
import { changeNumberOf } from '../changes/cluster-time.js'
import type { Document } from '../document.js'
import { changeStreamFatalError, changeStreamHistoryLostError, invalidArgumentError, unknownStageError } from '../errors.js'

/** The options of `watch()` the engine honours (as the driver names them). */
export interface WatchOptions extends ImageOptions, PromoteOptions {
  /** Starts right after the change this token (an event's `_id`) names; not after an `invalidate` (the stream it ended is over). */
  resumeAfter?: unknown
  /** As `resumeAfter`, and also after an `invalidate` event: a new stream from where the old one ended. */
  startAfter?: unknown
  /** Starts at the first change at or after this time (a change's `clusterTime`, a wire reply's `operationTime`). */
  startAtOperationTime?: Timestamp | undefined
  /** Changes read from the log per step. */
  batchSize?: number | undefined
}

/** Stages a change stream's pipeline may hold after `$changeStream`, as on a server. */
const ALLOWED_STAGES = new Set(['$match', '$project', '$addFields', '$set', '$unset', '$replaceRoot', '$replaceWith', '$redact'])
/** MongoDB's other stages: refused in a change stream by name; a name not among them is unknown (40324), as on a server. */
const OTHER_STAGES = new Set(['$bucket', '$bucketAuto', '$changeStream', '$changeStreamSplitLargeEvent', '$collStats', '$count', '$currentOp', '$densify', '$documents', '$facet', '$fill', '$geoNear', '$graphLookup', '$group', '$indexStats', '$limit', '$listLocalSessions', '$listSessions', '$lookup', '$merge', '$out', '$planCacheStats', '$sample', '$search', '$searchMeta', '$setWindowFields', '$skip', '$sort', '$sortByCount', '$unionWith', '$unwind', '$vectorSearch'])

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
 * A change stream over one collection, one database or the whole engine, shaped as the driver's
 * `ChangeStream`: `next()`, `tryNext()`, `hasNext()`, async iteration, `close()`, `resumeToken`,
 * and `'change'` events once a listener is added. It reads the engine's change log
 * (change-log-store.ts) past its position, a step (at most STEP_BYTES) at a time, so it holds no
 * memory for changes it has not read yet: a reader that stops costs its position and one step,
 * and resumes where it was while the log keeps that change. A collection's stream ends with an
 * `invalidate` event once the collection is dropped or renamed, a database's once it is dropped.
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
  /** The invalidate event was read: nothing after it is. */
  #ended = false
  #waiting: (() => void) | undefined
  #emitting = false

  constructor(source: ChangeSource, pipeline: Document[] = [], options: WatchOptions = {}) {
    super()
    checkPipeline(pipeline)
    this.#source = source
    this.#pipeline = pipeline
    this.#options = options
    this.#batch = options.batchSize !== undefined && options.batchSize > 0 ? options.batchSize : DEFAULT_BATCH
    this.#position = startOf(source.feed, options)
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
    const event = this.#next()
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
      const event = this.#next()
      if (!event) break
      batch.push(event)
      if (this.#closed) break
    }
    return batch
  }

  /** The position after every change read so far, handed out or not (a wire batch's postBatchResumeToken). */
  get postBatchResumeToken(): { _data: string } {
    // Once ended, the last token is the invalidate's: a new stream starts after it (startAfter).
    return this.#pending.length > 0 || this.#ended ? this.#token : tokenOf(this.#position)
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

  /** Reads log entries past the position until one in the stream's scope passes the pipeline (or the log ends). */
  #fill(): void {
    if (this.#pending.length > 0 || this.#ended) return
    this.#checkRetained()
    for (;;) {
      const entries = this.#source.feed.store.read(this.#position, this.#batch, STEP_BYTES)
      for (const [seq, bytes, at] of entries) {
        this.#position = seq
        if (this.#take(seq, bytes, at) === 'last') return
      }
      if (this.#pending.length > 0 || entries.length === 0) return
    }
  }

  /** One log entry: its event, if in scope and past the pipeline; after a last one, the invalidate event, and the stream reads no more. */
  #take(seq: number, bytes: Uint8Array, at: number): 'none' | 'event' | 'last' {
    const { scope, namespaceOf, keepsImages } = this.#source
    const entry = decodeChange(bytes)
    const reach = reachOf(entry, scope, namespaceOf)
    if (reach === 'none') return reach
    const context = entry.o === 'dropDatabase' ? { seq, at, ns: { db: entry.c, coll: '' }, keepsImages: false } : { seq, at, ns: namespaceOf(entry.c), keepsImages: keepsImages(entry.c) }
    const shaped = changeDocument(entry, context, this.#options)
    const event = shaped && this.#shape(shaped)
    if (event) this.#pending.push([seq, event])
    if (reach === 'last') {
      this.#pending.push([seq, invalidateDocument(seq, at)])
      this.#ended = true
    }
    return reach
  }

  /** A stream that fell behind what the log keeps has lost changes: it fails rather than skip them. */
  #checkRetained(): void {
    const { trimmed } = this.#source.feed.store.bounds()
    if (this.#position < trimmed) {
      this.#closed = true
      throw changeStreamHistoryLostError(`Resume of change stream was not possible, as the resume point may no longer be in the change log (resume token ${tokenOf(this.#position)._data}, oldest kept ${tokenOf(trimmed + 1)._data})`)
    }
  }

  /** The event through the stream's pipeline; one whose `_id` the pipeline changed can no longer be resumed after: the stream fails (280), as a server's. */
  #shape(event: Document): Document | undefined {
    if (this.#pipeline.length === 0) return event
    const shaped = aggregateDocuments([event], this.#pipeline, () => {
      throw invalidArgumentError('A change stream pipeline may not read other collections')
    })[0]
    const token = (event['_id'] as { _data: string })._data
    if (shaped !== undefined && (shaped['_id'] as { _data?: unknown } | undefined)?._data !== token) {
      this.#closed = true
      throw changeStreamFatalError(`Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed. Expected: { _id: { _data: "${token}" } }`)
    }
    return shaped
  }

  #next(): Document | null {
    const next = this.#pending.shift()
    if (!next) return null
    this.#token = next[1]['_id'] as { _data: string }
    // The invalidate ends the stream: handed out, it is the last thing the stream gives.
    if (next[1]['operationType'] === 'invalidate') void this.close()
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
    if (name?.startsWith('$') && !ALLOWED_STAGES.has(name) && !OTHER_STAGES.has(name)) throw unknownStageError(name)
    if (name === undefined || !ALLOWED_STAGES.has(name)) {
      throw invalidArgumentError(`${name ?? 'An empty stage'} is not permitted in a $changeStream pipeline (allowed: ${[...ALLOWED_STAGES].join(', ')})`)
    }
  }
}

/**
 * Where a stream starts: after the change a token names (resumeAfter, startAfter), before the
 * first change at or after a time (startAtOperationTime), or after the last committed one.
 */
function startOf(feed: ChangeFeed, options: WatchOptions): number {
  const { trimmed, last } = feed.store.bounds()
  const token = options.resumeAfter ?? options.startAfter
  if (token === undefined && options.startAtOperationTime === undefined) return last
  let seq: number
  if (token !== undefined) {
    const read = readToken(token)
    if (read.invalidate && options.resumeAfter !== undefined) {
      throw changeStreamFatalError(`Resume token ${tokenOf(read.seq, true)._data} is an invalidate event's: the stream it ended cannot be resumed; start a new one after it with startAfter`)
    }
    seq = read.seq
    if (seq > last) throw changeStreamFatalError(`Resume token ${tokenOf(seq)._data} is past the last change of this engine (${tokenOf(last)._data}): it was not issued here`)
  } else {
    const time = options.startAtOperationTime
    if (!(time instanceof Timestamp)) throw invalidArgumentError('startAtOperationTime must be a Timestamp')
    // A time still to come is waited for: the changes before it are not the stream's.
    seq = Math.max(0, changeNumberOf(time) - 1)
  }
  if (seq < trimmed) {
    throw changeStreamHistoryLostError(`Resume of change stream was not possible, as the resume point may no longer be in the change log (resume token ${tokenOf(seq)._data}, oldest kept ${tokenOf(trimmed + 1)._data})`)
  }
  return seq
}
