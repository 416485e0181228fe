/**
 * Runs write operations one at a time, in arrival order.
 *
 * Every read-check-write sequence (unique checks, read-modify-write updates) runs inside one
 * queued task, and the next task starts only once this one's writes are visible to it. That is
 * what makes 50 concurrent inserts of one key yield exactly one success, and 100 concurrent
 * `$push` onto one document keep all 100 items. A failed task never blocks the ones behind it.
 * `runApplied` lets a task end (for the queue) before its acknowledgement: group commit.
 */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve()
  #waiting = 0

  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.#waiting++
    const result = this.#tail.then(() => {
      this.#waiting--
      return task()
    })
    this.#tail = result.catch(() => undefined)
    return result
  }

  /**
   * Runs `task`, which answers two promises: `applied` (its writes are visible: the next task may
   * start) and `durable` (its outcome, once committed). Resolves with the outcome.
   */
  runApplied<T>(task: () => { applied: Promise<void>, durable: Promise<T> }): Promise<T> {
    this.#waiting++
    let durable: Promise<T> | undefined
    const applied = this.#tail.then(() => {
      this.#waiting--
      const started = task()
      durable = started.durable
      return started.applied
    })
    this.#tail = applied.catch(() => undefined)
    return applied.then(() => durable as Promise<T>)
  }

  /** Whether tasks are queued and not yet started. */
  get waiting(): boolean {
    return this.#waiting > 0
  }

  /**
   * Waits for every task queued so far, then keeps the queue blocked until `release` is
   * called. Lets one operation (dropDatabase) exclude writers of several collections.
   */
  hold(): Promise<() => void> {
    return new Promise((acquired) => {
      void this.run(() => new Promise<void>((release) => acquired(release)))
    })
  }

  /** Resolves once every task queued so far has settled. */
  async drain(): Promise<void> {
    await this.#tail
  }
}
