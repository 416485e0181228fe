import type { Database, RootDatabase } from 'lmdb'

/**
 * How long the change log keeps changes: at most `events` of them, and none older than `ms`
 * (absent: no age limit). A resume token older than what is kept fails with
 * ChangeStreamHistoryLost (change-stream.ts).
 */
export interface ChangeRetention {
  events: number
  ms?: number | undefined
}

/** One entry of the log: its number, its bytes, and when it was written (ms since the epoch). */
export type LoggedChange = [seq: number, bytes: Uint8Array, at: number]

/** Changes kept when `openEmbedded` is given no `changeRetention`. */
export const DEFAULT_CHANGE_RETENTION: ChangeRetention = { events: 10_000 }

/**
 * The engine's change log as a storage keeps it: one entry (change-entry.ts's bytes) per changed
 * document, under a sequence number that grows with every commit. A storage's `write` calls
 * `append` inside the transaction that changes the documents, so a committed write always has
 * its entries and an uncommitted one never does (after `kill -9` too, on disk).
 */
export interface ChangeLogStore {
  /** Within the current write: numbers and stores `entries`, then drops what retention no longer keeps. */
  append(entries: Uint8Array[]): void
  /**
   * Committed entries numbered above `after`, ascending, at most `limit`, and none past the one that
   * takes their bytes to `maxBytes` (so one entry larger than that still comes, alone); each with
   * the time it was written (ms since the epoch: a change event's `wallTime`).
   */
  read(after: number, limit: number, maxBytes: number): LoggedChange[]
  /** `trimmed`: the highest number retention dropped (0: none); `last`: the highest committed number. */
  bounds(): { trimmed: number, last: number }
  retain(retention: ChangeRetention): void
}

/**
 * The in-memory change log: an array whose entries from `#head` on are kept, the first of them
 * numbered `trimmed + 1`. Dropped entries are cut off in bulk (once they are half the array), so
 * trimming one entry per write costs no copy of the others.
 */
export class MemoryChangeLog implements ChangeLogStore {
  #entries: { seq: number, at: number, bytes: Uint8Array }[] = []
  #head = 0
  #trimmed = 0
  #last = 0
  #retention: ChangeRetention = DEFAULT_CHANGE_RETENTION

  append(entries: Uint8Array[]): void {
    const at = Date.now()
    for (const bytes of entries) this.#entries.push({ seq: ++this.#last, at, bytes })
    const oldest = this.#retention.ms === undefined ? -Infinity : at - this.#retention.ms
    const kept = () => this.#entries.length - this.#head
    while (this.#head < this.#entries.length && (kept() > this.#retention.events || this.#entries[this.#head]!.at < oldest)) {
      this.#trimmed = this.#entries[this.#head]!.seq
      this.#head++
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head)
      this.#head = 0
    }
  }

  read(after: number, limit: number, maxBytes: number): LoggedChange[] {
    const found: LoggedChange[] = []
    let bytes = 0
    const start = this.#head + Math.max(0, after - this.#trimmed)
    const end = Math.min(this.#entries.length, start + limit)
    for (let i = start; i < end && bytes < maxBytes; i++) {
      const entry = this.#entries[i]!
      found.push([entry.seq, entry.bytes, entry.at])
      bytes += entry.bytes.length
    }
    return found
  }

  bounds(): { trimmed: number, last: number } {
    return { trimmed: this.#trimmed, last: this.#last }
  }

  retain(retention: ChangeRetention): void {
    this.#retention = retention
  }
}

/** Key of the entry that remembers the highest number retention dropped (entries start at 1). */
const TRIMMED_KEY = 0
/** Bytes before an entry's own in LMDB: the time it was written (ms, a float64), for retention by age. */
const TIME_BYTES = 8
/**
 * Entries past retention by count that the log drops together (LmdbChangeLog's `#trim`): removing
 * one per write, and rewriting the trimmed number each time, was a sixth of what logging cost.
 */
const TRIM_BATCH = 64

/**
 * The durable change log: a named LMDB database (`changes`) of the storage's environment, keyed
 * by sequence number. `append` runs inside the write transaction of the documents it describes.
 * Retention by count is exact as reads see it (`bounds` and `read` keep to the last `events`
 * numbers), and applied to storage in batches of TRIM_BATCH: the log holds at most that many more.
 * Retention by age is applied at each write.
 * @internal Left out of the declarations (`stripInternal`): its constructor takes lmdb's types, and lmdb's
 * index.d.ts fails a user's `skipLibCheck: false` (TS1203, test/packaging/lib-check.test.ts).
 */
export class LmdbChangeLog implements ChangeLogStore {
  readonly #db: Database<Buffer, number>
  #retention: ChangeRetention = DEFAULT_CHANGE_RETENTION
  /** The number of the last entry appended (committed or in the open transaction). */
  #last: number
  /** What the last trim left stored as trimmed: when the next is due (read again then, so a failed commit only delays it). */
  #trimmedHint: number

  constructor(root: RootDatabase) {
    this.#db = root.openDB<Buffer, number>('changes', { encoding: 'binary' })
    const lastKey = [...this.#db.getKeys({ reverse: true, limit: 1 })][0] ?? 0
    this.#trimmedHint = this.#storedTrimmed()
    this.#last = Math.max(lastKey, this.#trimmedHint)
  }

  /** Read inside the write transaction, so a write that failed (and numbered entries it never stored) cannot mislead it. */
  #storedTrimmed(): number {
    const bytes = this.#db.get(TRIMMED_KEY)
    return bytes === undefined ? 0 : bytes.readDoubleLE(0)
  }

  append(entries: Uint8Array[]): void {
    const now = Date.now()
    for (const bytes of entries) {
      const value = Buffer.allocUnsafe(TIME_BYTES + bytes.length)
      value.writeDoubleLE(now, 0)
      value.set(bytes, TIME_BYTES)
      this.#db.put(++this.#last, value)
    }
    if (this.#retention.ms !== undefined || this.#last - this.#retention.events - this.#trimmedHint >= TRIM_BATCH) this.#trim(now)
  }

  /**
   * Drops entries past retention, oldest first, in the same transaction. By count, the kept entries
   * are those numbered within the last `events` numbers (a failed write leaves a gap, so at most
   * `events` are kept): the doomed keys are known without reading the log, which every write would
   * otherwise pay for once the log is full. By age, entries are read before removal (no removal
   * under a live range), a few more per write than are added, so it keeps up.
   */
  #trim(now: number): void {
    const trimmed = this.#storedTrimmed()
    let upTo = Math.max(trimmed, this.#last - this.#retention.events)
    this.#trimmedHint = upTo
    if (this.#retention.ms !== undefined) {
      const oldest = now - this.#retention.ms
      for (const { key, value } of this.#db.getRange({ start: upTo + 1, limit: 16 })) {
        if (value.readDoubleLE(0) >= oldest) break
        upTo = key
      }
    }
    if (upTo === trimmed) return
    for (let key = trimmed + 1; key <= upTo; key++) this.#db.remove(key)
    const bytes = Buffer.alloc(8)
    bytes.writeDoubleLE(upTo, 0)
    this.#db.put(TRIMMED_KEY, bytes)
  }

  read(after: number, limit: number, maxBytes: number): LoggedChange[] {
    const found: LoggedChange[] = []
    let bytes = 0
    // Entries retention dropped but storage still holds (trimmed in batches) are not read.
    for (const { key, value } of this.#db.getRange({ start: Math.max(after, this.bounds().trimmed) + 1, limit })) {
      found.push([key, value.subarray(TIME_BYTES), value.readDoubleLE(0)])
      bytes += value.length - TIME_BYTES
      if (bytes >= maxBytes) break
    }
    return found
  }

  bounds(): { trimmed: number, last: number } {
    const stored = this.#storedTrimmed()
    const last = Math.max([...this.#db.getKeys({ reverse: true, limit: 1 })][0] ?? 0, stored)
    return { trimmed: Math.max(stored, last - this.#retention.events), last }
  }

  retain(retention: ChangeRetention): void {
    this.#retention = retention
  }
}
