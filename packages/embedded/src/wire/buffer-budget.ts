/** A connection holding received bytes that are not yet a whole message. */
export interface BufferHolder {
  /** Called once when the budget takes this holder's bytes away: close the connection. */
  evict(): void
}

/**
 * The bytes every connection of a server holds in unfinished (or queued) messages, kept under one
 * cap. When a chunk would take the total over the cap, the holder of the most bytes is closed,
 * whether that is the connection the chunk came for or another one, until the chunk fits. So a
 * client sending ordinary small requests is never the one dropped while a socket holding a large
 * unfinished message exists, and no reader is ever paused waiting for room (pausing every reader
 * with a partial message could wait forever).
 */
export class BufferBudget {
  readonly max: number
  readonly #held = new Map<BufferHolder, number>()
  #total = 0
  #peak = 0

  constructor(max: number) {
    this.max = max
  }

  /** Bytes held now, by all connections. */
  get total(): number {
    return this.#total
  }

  /** The most bytes held at once since the server started. */
  get peak(): number {
    return this.#peak
  }

  /**
   * Takes `bytes` more for `holder`, closing the largest holders first if need be. False when
   * `holder` itself is the largest: it is then dropped from the budget and must close.
   */
  reserve(holder: BufferHolder, bytes: number): boolean {
    const own = this.#held.get(holder) ?? 0
    while (this.#total + bytes > this.max) {
      const victim = this.#largestOtherThan(holder, own + bytes)
      if (victim === undefined) {
        this.drop(holder)
        return false
      }
      this.drop(victim)
      victim.evict()
    }
    this.#held.set(holder, own + bytes)
    this.#total += bytes
    if (this.#total > this.#peak) this.#peak = this.#total
    return true
  }

  /** Gives back `bytes` of `holder` (a whole message left the buffer). */
  release(holder: BufferHolder, bytes: number): void {
    const own = this.#held.get(holder)
    if (own === undefined) return
    const released = Math.min(own, bytes)
    this.#total -= released
    if (own === released) this.#held.delete(holder)
    else this.#held.set(holder, own - released)
  }

  /** Gives back everything `holder` held (its connection closed). */
  drop(holder: BufferHolder): void {
    this.release(holder, Number.POSITIVE_INFINITY)
  }

  /** The holder of the most bytes, if it holds more than `than` (ties keep the others alive). */
  #largestOtherThan(holder: BufferHolder, than: number): BufferHolder | undefined {
    let largest: BufferHolder | undefined
    let most = than
    for (const [other, bytes] of this.#held) {
      if (other !== holder && bytes > most) {
        largest = other
        most = bytes
      }
    }
    return largest
  }
}
