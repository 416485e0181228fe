import { maxTimeExpiredError } from '../errors.js'
import { failPointOn } from './fail-points.js'

/** How many units of work (documents, mostly) a read does between two clock reads: cheap, yet fine-grained. */
const CHECK_EVERY = 64
/**
 * The longest slice of work a read does before it lets the event loop run (pause.ts): reads that
 * paused resume together and share one slice, so a turn of the loop spends at most about this long in reads.
 */
export const SLICE_MS = 4
/**
 * A slice also ends after this many units of work, however fast they were: a read of more than this
 * many documents lets the loop run at least once in between, whatever the machine's speed.
 */
export const SLICE_TICKS = 16_384

/**
 * The clock of one read. It enforces `maxTimeMS`: only time spent inside the engine counts (a
 * cursor whose consumer is slow between documents is not charged for that, nor is the time a read
 * waits for the event loop after a pause), like the server, which counts processing time rather
 * than the client's think time. And it cuts the read's work into slices (`due`), between which
 * the read pauses so that the event loop stays free.
 *
 * With the `maxTimeAlwaysTimeOut` fail point on, an operation that has a time limit fails at the start
 * of its first slice of work, whatever it scans (a point read and an empty collection included), as on
 * a server where that fail point makes every interrupt check fail.
 */
export class Deadline {
  readonly #budgetMs: number
  #spentMs = 0
  #resumedAt = 0
  #ticks = 0
  #checkedAt = 0
  /** When the current slice began (0: not yet), and the ticks counted at its start and at the last clock read. */
  #sliceFrom = 0
  #sliceTicks = 0
  #sliceCheckedAt = 0

  constructor(maxTimeMS: number | undefined) {
    this.#budgetMs = maxTimeMS !== undefined && maxTimeMS > 0 ? maxTimeMS : Number.POSITIVE_INFINITY
  }

  /** Marks the start of an engine-side stretch of work. */
  resume(): void {
    this.#resumedAt = performance.now()
    if (this.#sliceFrom === 0) this.#sliceFrom = this.#resumedAt
    if (this.#budgetMs !== Number.POSITIVE_INFINITY && failPointOn('maxTimeAlwaysTimeOut')) throw maxTimeExpiredError()
  }

  /** Marks the end of a stretch (e.g. before handing a document to the consumer). */
  pause(): void {
    this.#spentMs += performance.now() - this.#resumedAt
  }

  /** After a pause: the event loop ran, a new slice begins at `from` (the turn's start, shared by the reads resumed in it). */
  startSlice(from: number): void {
    this.#sliceFrom = from
    this.#sliceTicks = this.#ticks
    this.#sliceCheckedAt = this.#ticks
  }

  /** Counts `units` of work (a document scanned, sorted or returned); throws MaxTimeMSExpired when the budget is gone. */
  tick(units = 1): void {
    this.#ticks += units
    if (this.#budgetMs === Number.POSITIVE_INFINITY || this.#ticks - this.#checkedAt < CHECK_EVERY) return
    this.#checkedAt = this.#ticks
    if (this.#spentMs + (performance.now() - this.#resumedAt) > this.#budgetMs) throw maxTimeExpiredError()
  }

  /** Whether the current slice is used up (SLICE_MS, or SLICE_TICKS units of work): the read should pause. */
  due(): boolean {
    const done = this.#ticks - this.#sliceTicks
    if (done >= SLICE_TICKS) return true
    if (this.#ticks - this.#sliceCheckedAt < CHECK_EVERY) return false
    this.#sliceCheckedAt = this.#ticks
    return performance.now() - this.#sliceFrom >= SLICE_MS
  }
}
