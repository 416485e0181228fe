import type { ServerResponse } from 'node:http'

/** A comment line every this many milliseconds keeps proxies from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000
/**
 * Heartbeats in a row through which a subscriber's connection took nothing while events waited for
 * it (15 to 30 seconds): it stopped reading. Waiting on it costs about 1 MiB and its connection (its
 * stream reads nothing more from the database meanwhile), but a client that never reads again would
 * keep them, and its place among `maxStreams`, for ever.
 */
export const STALLED_HEARTBEATS = 2

/**
 * The heartbeat of one `_events` response: a comment line every HEARTBEAT_MS while nothing waits to
 * be sent, and the judge of a client that stopped reading, `stalled` once its connection has taken
 * nothing for STALLED_HEARTBEATS heartbeats in a row while something waited. Progress is told by
 * `taken`, the callback of every write: it runs once the connection took that text.
 */
export class EventHeartbeat {
  readonly #timer: NodeJS.Timeout
  #taken = false
  #stalls = 0

  constructor(out: ServerResponse, stalled: () => void) {
    this.#timer = setInterval(() => {
      if (out.writableLength === 0) {
        this.#stalls = 0
        out.write(': heartbeat\n\n', this.taken)
      } else if (this.#taken) this.#stalls = 0
      else if (++this.#stalls >= STALLED_HEARTBEATS) stalled()
      this.#taken = false
    }, HEARTBEAT_MS)
  }

  readonly taken = (): void => {
    this.#taken = true
  }

  stop(): void {
    clearInterval(this.#timer)
  }
}
