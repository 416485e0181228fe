import { maxTimeExpiredError } from '../errors.js'
import { failPointOn } from './fail-points.js'

/** How many documents a scan processes between two clock reads: cheap, yet fine-grained. */
const CHECK_EVERY = 64

/**
 * Enforces `maxTimeMS` on a scan. Only time spent inside the engine counts (a cursor whose
 * consumer is slow between documents is not charged for that), like the server, which counts
 * processing time rather than the client's think time.
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

  constructor(maxTimeMS: number | undefined) {
    this.#budgetMs = maxTimeMS !== undefined && maxTimeMS > 0 ? maxTimeMS : Number.POSITIVE_INFINITY
  }

  /** Marks the start of an engine-side slice of work. */
  resume(): void {
    this.#resumedAt = performance.now()
    if (this.#budgetMs !== Number.POSITIVE_INFINITY && failPointOn('maxTimeAlwaysTimeOut')) throw maxTimeExpiredError()
  }

  /** Marks the end of a slice (e.g. before handing a document to the consumer). */
  pause(): void {
    this.#spentMs += performance.now() - this.#resumedAt
  }

  /** Called once per scanned document; throws MaxTimeMSExpired when the budget is gone. */
  tick(): void {
    if (this.#budgetMs === Number.POSITIVE_INFINITY) return
    if (++this.#ticks % CHECK_EVERY !== 0) return
    if (this.#spentMs + (performance.now() - this.#resumedAt) > this.#budgetMs) throw maxTimeExpiredError()
  }
}
