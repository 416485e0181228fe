import type { Document } from '../document.js'
import { Deadline } from '../pace/deadline.js'
import { nextTurn, PAUSE, type Pause } from '../pace/pause.js'
import { observing, type ReadStats } from './scan-documents.js'

/** Produces the cursor's documents, lazily, charging scan work to `deadline`; PAUSE where it lets the event loop run. */
type DocumentSource = (deadline: Deadline) => Iterator<Document | Pause, undefined>

/**
 * A find() cursor. Nothing runs until the first read (like the driver, which sends `find`
 * on first iteration); then documents are pulled one by one from the source, so an unsorted
 * scan holds one document at a time. `maxTimeMS` counts only time spent producing documents.
 *
 * The source works in slices (deadline.ts): when it pauses, the cursor waits for the event loop's
 * next turn before pulling again (pause.ts), so a long scan or sort never holds the loop.
 */
export class EmbeddedCursor {
  readonly #source: DocumentSource
  readonly #deadline: Deadline
  /** Work to await before the first document (an aggregation's `$out` or `$merge` write). */
  #before: (() => Promise<void>) | undefined
  #iterator: Iterator<Document | Pause, undefined> | undefined
  #closed = false
  /** Counts what the read examines, for the wire server's explain (set by `observe`). */
  #stats: ReadStats | undefined

  /** For engine code (the wire server's explain): counts in `stats` the documents and index keys this cursor's read examines. */
  static observe: (cursor: EmbeddedCursor, stats: ReadStats) => void
  static {
    EmbeddedCursor.observe = (cursor, stats) => {
      cursor.#stats = stats
    }
  }

  constructor(source: DocumentSource, maxTimeMS: number | undefined, before?: () => Promise<void>) {
    this.#source = source
    this.#deadline = new Deadline(maxTimeMS)
    this.#before = before
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Document, void> {
    try {
      const before = this.#before
      this.#before = undefined
      if (before && !this.#closed) await before()
      for (let doc = this.#next(); doc !== undefined; doc = this.#next()) {
        if (doc !== PAUSE) {
          yield doc
          continue
        }
        const turn = await nextTurn()
        this.#deadline.startSlice(turn)
      }
    } finally {
      await this.close()
    }
  }

  async toArray(): Promise<Document[]> {
    const docs: Document[] = []
    for await (const doc of this) docs.push(doc)
    return docs
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#iterator?.return?.()
    this.#iterator = undefined
  }

  #next(): Document | Pause | undefined {
    if (this.#closed) return undefined
    this.#deadline.resume()
    try {
      const step = this.#stats === undefined ? this.#step() : observing(this.#stats, () => this.#step())
      return step.done ? undefined : step.value
    } finally {
      this.#deadline.pause()
    }
  }

  #step(): IteratorResult<Document | Pause, undefined> {
    this.#iterator ??= this.#source(this.#deadline)
    return this.#iterator.next()
  }
}
