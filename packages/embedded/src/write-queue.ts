/**
 * Runs write operations one at a time, in arrival order.
 *
 * Every read-check-write sequence (unique checks, read-modify-write updates) runs inside one
 * queued task and awaits its commit before the next task starts. That is what makes 50
 * concurrent inserts of one key yield exactly one success, and 100 concurrent `$push` onto one
 * document keep all 100 items. A failed task never blocks the ones behind it.
 */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task)
    this.#tail = result.catch(() => undefined)
    return result
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
