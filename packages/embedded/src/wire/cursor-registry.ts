import { randomBytes } from 'node:crypto'
import { Long } from 'mongodb'
import { bsonSizeWithin, MAX_BSON_SIZE } from '../bson/bson-codec.js'
import { StoredBytes } from '../bson/stored-bytes.js'
import type { Document } from '../document.js'
import { documentTooLargeError } from '../errors.js'
import { cursorNotFound, operationFailed } from './wire-error.js'

/** The server's default first batch, in documents. */
const DEFAULT_FIRST_BATCH = 101
/**
 * The largest document a reply carries: the server's limit for the documents an aggregation makes
 * (16 MiB and 16 KiB); a larger one fails the batch with BSONObjectTooLarge (10334), as on the
 * server, instead of a reply the driver cannot read.
 */
const MAX_DOCUMENT_BYTES = MAX_BSON_SIZE + 16 * 1024
/**
 * A batch stops growing past this many bytes of documents. The server's limit is 16 MiB; a reply is
 * encoded in one synchronous stretch (a 16 MiB one takes a large part of a second, holding every
 * other connection), so batches stay near 1 MiB: the driver asks for the rest with more getMores, as
 * it does past any batch the server cuts short.
 */
const MAX_BATCH_BYTES = 1024 * 1024
/** An idle cursor is closed after this long, like the server's cursorTimeoutMillis. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000
/** Open cursors the whole server keeps, unless `maxCursors` says otherwise. */
export const DEFAULT_MAX_CURSORS = 10_000
/** Open cursors one connection may keep, unless `maxCursorsPerConnection` says otherwise. */
export const DEFAULT_MAX_CURSORS_PER_CONNECTION = 1_000

interface CursorLimits {
  maxCursors: number
  maxCursorsPerConnection: number
}

interface OpenCursor {
  ns: string
  iterator: AsyncIterator<Document>
  owner: number
  lastUsed: number
  /** A document read but left for the next batch, which it would have made too large. */
  pending?: Document | undefined
}

interface Batch {
  docs: Document[]
  /** 0 once the source is exhausted (the cursor is then closed). */
  id: Long
}

/**
 * Server-side cursors, keyed by random non-zero 64-bit ids. The driver may send a `getMore` on
 * any pooled connection, so cursors are shared by the server's connections; each belongs to the
 * connection that opened it and is closed when that connection ends, or after 10 idle minutes.
 *
 * An idle cursor holds no read transaction (engine scans read in short batches), only its
 * position and at most one storage batch; still, their number is capped, per connection and in
 * all, so a client cannot open them without bound: past a cap, a find that would leave a cursor
 * open fails with OperationFailed (96) and the cursor is closed.
 */
export class CursorRegistry {
  readonly #open = new Map<string, OpenCursor>()
  readonly #perOwner = new Map<number, number>()
  readonly #limits: CursorLimits
  readonly #reaper: NodeJS.Timeout

  constructor(limits: CursorLimits = { maxCursors: DEFAULT_MAX_CURSORS, maxCursorsPerConnection: DEFAULT_MAX_CURSORS_PER_CONNECTION }) {
    this.#limits = limits
    this.#reaper = setInterval(() => this.#closeIdle(), 60_000)
    this.#reaper.unref()
  }

  /**
   * Takes the first batch from `source`; registers a cursor only when documents remain.
   * `batchSize` 0 returns an empty first batch and keeps everything for `getMore`.
   */
  async open(ns: string, source: AsyncIterable<Document>, owner: number, batchSize: number | undefined, single: boolean): Promise<Batch> {
    const iterator = source[Symbol.asyncIterator]()
    const cursor: OpenCursor = { ns, iterator, owner, lastUsed: Date.now() }
    const batch = await this.#take(cursor, batchSize ?? DEFAULT_FIRST_BATCH)
    if (batch.done || single) {
      if (!batch.done) await iterator.return?.()
      return { docs: batch.docs, id: Long.ZERO }
    }
    const owned = this.#perOwner.get(owner) ?? 0
    if (this.#open.size >= this.#limits.maxCursors || owned >= this.#limits.maxCursorsPerConnection) {
      await iterator.return?.()
      const which = owned >= this.#limits.maxCursorsPerConnection
        ? `this connection already has ${owned} open cursors (at most ${this.#limits.maxCursorsPerConnection})`
        : `the server already has ${this.#open.size} open cursors (at most ${this.#limits.maxCursors})`
      throw operationFailed(`Cannot open another cursor: ${which}; exhaust or kill some first`)
    }
    const id = newCursorId()
    this.#add(id.toString(), cursor)
    return { docs: batch.docs, id }
  }

  async getMore(id: Long, ns: string, batchSize: number | undefined): Promise<Batch> {
    const key = id.toString()
    const cursor = this.#open.get(key)
    if (!cursor || cursor.ns !== ns) throw cursorNotFound(`cursor id ${key} not found`)
    // Taken out while it works, so a concurrent getMore or killCursors cannot interleave.
    this.#remove(key, cursor)
    try {
      const batch = await this.#take(cursor, batchSize ?? Number.POSITIVE_INFINITY)
      if (batch.done) return { docs: batch.docs, id: Long.ZERO }
      cursor.lastUsed = Date.now()
      this.#add(key, cursor)
      return { docs: batch.docs, id }
    } catch (error) {
      await cursor.iterator.return?.()
      throw error
    }
  }

  /** Closes the listed cursors of `ns`; returns which ids were killed and which were unknown. */
  async kill(ns: string, ids: Long[]): Promise<{ killed: Long[], notFound: Long[] }> {
    const killed: Long[] = []
    const notFound: Long[] = []
    for (const id of ids) {
      const cursor = this.#open.get(id.toString())
      if (!cursor || cursor.ns !== ns) {
        notFound.push(id)
        continue
      }
      this.#remove(id.toString(), cursor)
      await cursor.iterator.return?.()
      killed.push(id)
    }
    return { killed, notFound }
  }

  /** Closes every cursor a connection opened (it has gone). */
  async closeOwnedBy(owner: number): Promise<void> {
    await this.#closeWhere((cursor) => cursor.owner === owner)
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#reaper)
    await this.#closeWhere(() => true)
  }

  get size(): number {
    return this.#open.size
  }

  #add(key: string, cursor: OpenCursor): void {
    this.#open.set(key, cursor)
    this.#perOwner.set(cursor.owner, (this.#perOwner.get(cursor.owner) ?? 0) + 1)
  }

  #remove(key: string, cursor: OpenCursor): void {
    if (!this.#open.delete(key)) return
    const left = (this.#perOwner.get(cursor.owner) ?? 1) - 1
    if (left === 0) this.#perOwner.delete(cursor.owner)
    else this.#perOwner.set(cursor.owner, left)
  }

  async #take(cursor: OpenCursor, batchSize: number): Promise<{ docs: Document[], done: boolean }> {
    const docs: Document[] = []
    let bytes = 0
    const limit = batchSize > 0 ? batchSize : batchSize === 0 ? 0 : Number.POSITIVE_INFINITY
    while (docs.length < limit) {
      let doc = cursor.pending
      cursor.pending = undefined
      if (doc === undefined) {
        const step = await cursor.iterator.next()
        if (step.done) return { docs, done: true }
        doc = step.value
      }
      const size = doc instanceof StoredBytes ? doc.bytes.length : bsonSizeWithin(doc, MAX_DOCUMENT_BYTES)
      if (size > MAX_DOCUMENT_BYTES) throw documentTooLargeError(size, MAX_DOCUMENT_BYTES)
      if (docs.length > 0 && bytes + size > MAX_BATCH_BYTES) {
        cursor.pending = doc
        break
      }
      docs.push(doc)
      bytes += size
    }
    return { docs, done: false }
  }

  async #closeWhere(predicate: (cursor: OpenCursor) => boolean): Promise<void> {
    const closing = [...this.#open].filter(([, cursor]) => predicate(cursor))
    for (const [key, cursor] of closing) this.#remove(key, cursor)
    await Promise.allSettled(closing.map(([, cursor]) => cursor.iterator.return?.()))
  }

  async #closeIdle(): Promise<void> {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS
    await this.#closeWhere((cursor) => cursor.lastUsed < cutoff)
  }
}

function newCursorId(): Long {
  const bytes = randomBytes(8)
  // Positive and non-zero: 0 means "exhausted" on the wire.
  const high = bytes.readInt32LE(4) & 0x7fffffff
  const low = bytes.readInt32LE(0)
  return high === 0 && low === 0 ? Long.ONE : Long.fromBits(low, high)
}
