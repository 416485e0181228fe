/**
 * When each document last changed in committed data, as seen by the transactions open now: what
 * gives the engine's transactions MongoDB's write-conflict rule. A transaction takes a snapshot
 * (`open`) at its first operation; a write it makes to a document whose change was committed after
 * that snapshot fails with WriteConflict (engine-transaction.ts), since what it read of the document
 * may be older than what it would overwrite.
 *
 * Times are only kept while some snapshot is open: with none, nothing can conflict, and the record
 * is dropped. Transactions live at most a minute, so the record holds at most a minute of writes.
 */
export class CommitClock {
  #now = 0
  /** Open snapshots: their time, and how many share it. */
  readonly #open = new Map<number, number>()
  /** The time of the last committed change of each `<storage name>\0<key>` since the oldest open snapshot. */
  readonly #changed = new Map<string, number>()

  /** A snapshot of now: every change committed later is newer than it. Give it back with `close`. */
  open(): number {
    const time = this.#now
    this.#open.set(time, (this.#open.get(time) ?? 0) + 1)
    return time
  }

  close(time: number): void {
    const left = (this.#open.get(time) ?? 1) - 1
    if (left > 0) this.#open.set(time, left)
    else this.#open.delete(time)
    if (this.#open.size === 0) this.#changed.clear()
    else if (this.#changed.size > PRUNE_AT) this.#prune()
  }

  /** The documents `keys` of a collection changed in a commit that is now durable. */
  committed(storageName: string, keys: Iterable<string>): void {
    if (this.#open.size === 0) return
    const time = ++this.#now
    for (const key of keys) this.#changed.set(`${storageName}\0${key}`, time)
  }

  /** Whether a commit after snapshot `time` changed the document `key`. */
  changedSince(storageName: string, key: string, time: number): boolean {
    return (this.#changed.get(`${storageName}\0${key}`) ?? -1) > time
  }

  /** Changes no open snapshot can see as newer are forgotten. */
  #prune(): void {
    const oldest = Math.min(...this.#open.keys())
    for (const [key, time] of this.#changed) if (time <= oldest) this.#changed.delete(key)
  }
}

/** Records past this size are pruned when a snapshot closes while others stay open. */
const PRUNE_AT = 10_000
