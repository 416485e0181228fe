/** Streamed lists one router serves at once, unless `maxStreams` says otherwise. */
export const DEFAULT_MAX_STREAMS = 64
/** How long a streamed list waits for its client to read, unless `streamIdleTimeout` says otherwise. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 30_000

/**
 * Counts the streamed lists of one router in flight. Each holds a cursor, a batch of documents
 * and socket buffers for as long as its client takes to read, so clients that never read could
 * otherwise pile them up without bound; past `max`, a new one is refused (503) instead.
 */
export class StreamGate {
  readonly max: number
  readonly idleTimeoutMs: number
  #active = 0

  constructor(max: number, idleTimeoutMs: number) {
    this.max = max
    this.idleTimeoutMs = idleTimeoutMs
  }

  /** Takes a place: returns its release (safe to call more than once), or undefined when all are taken. */
  enter(): (() => void) | undefined {
    if (this.#active >= this.max) return undefined
    this.#active++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#active--
    }
  }
}
