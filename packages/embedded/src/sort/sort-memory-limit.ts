import { invalidArgumentError, sortMemoryBusyError, sortMemoryExceededError } from '../errors.js'

/** MongoDB's default for a blocking sort (`internalQueryMaxBlockingSortMemoryUsageBytes`): 100 MB. */
export const DEFAULT_SORT_MEMORY_LIMIT_BYTES = 100 * 1024 * 1024
/** What all the sorts of one engine may hold together, by default: as much as one sort may. */
export const DEFAULT_TOTAL_SORT_MEMORY_LIMIT_BYTES = DEFAULT_SORT_MEMORY_LIMIT_BYTES

/**
 * The memory all the sorts without an index of one engine hold together (`totalSortMemoryLimitBytes`):
 * each sort's limit is per sort, so eight concurrent sorts could otherwise hold eight times it.
 */
export class SortMemoryPool {
  readonly limitBytes: number
  #heldBytes = 0
  /** Gives back what a sort abandoned without closing still held, once it is garbage (see SortMemoryLimit). */
  readonly #abandoned = new FinalizationRegistry<{ bytes: number }>((account) => this.give(account.bytes))

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes
  }

  get heldBytes(): number {
    return this.#heldBytes
  }

  /** Takes `bytes` if they fit within the limit; false (nothing taken) otherwise. */
  take(bytes: number): boolean {
    if (this.#heldBytes + bytes > this.limitBytes) return false
    this.#heldBytes += bytes
    return true
  }

  give(bytes: number): void {
    this.#heldBytes -= bytes
  }

  /**
   * Watches `holder`: once it is garbage, whatever `account` still holds is given back. A sort gives
   * back what it holds when it is done, fails or is closed; this covers a cursor left unfinished and
   * never closed, whose memory is freed only when it is collected.
   */
  watch(holder: object, account: { bytes: number }): void {
    this.#abandoned.register(holder, account)
  }
}

/** A sort's limits: its own (`limitBytes`), the engine's total (`pool`), and whether it asked for `allowDiskUse`. */
export interface SortMemory {
  limitBytes: number
  pool?: SortMemoryPool | undefined
  /** An aggregation's `allowDiskUse`: the limit holds all the same (no external sort), the error says so. */
  allowDiskUse?: boolean | undefined
}

/**
 * The memory a sort without an index may hold: the BSON bytes of the documents it keeps to sort
 * (a find's, or an aggregation's `$sort` stage, aggregate-documents.ts), until it hands them out.
 * An unbounded sort keeps every match; a sort with a limit keeps at most about twice skip + limit
 * documents (sort-documents.ts). The engine has no external (on-disk) sort, so instead of growing
 * the heap:
 * - past its own limit the sort fails with the server's error (292
 *   QueryExceededMemoryLimitNoDiskUseAllowed): it would fail again however often it is retried;
 * - past what the engine's sorts may hold together (`pool`), while within its own limit, it fails
 *   with 365 TemporarilyUnavailable: other sorts hold the rest, and it may succeed once they are done.
 *   (Alone past the total, it would never succeed: that is 292, with the total as the limit.)
 */
export class SortMemoryLimit {
  readonly #limitBytes: number
  readonly #allowDiskUse: boolean
  readonly #pool: SortMemoryPool | undefined
  /** What this sort holds, and took from the pool: given back when it hands documents out, fails or closes. */
  readonly #account = { bytes: 0 }
  /** What `reserve` took that charges have not drawn on yet (part of the account). */
  #reserved = 0

  constructor(memory: SortMemory) {
    this.#limitBytes = memory.pool === undefined ? memory.limitBytes : Math.min(memory.limitBytes, memory.pool.limitBytes)
    this.#allowDiskUse = memory.allowDiskUse === true
    this.#pool = memory.pool
    this.#pool?.watch(this, this.#account)
  }

  /** Counts `bytes` more as held; throws once this sort is past its limit, or the engine's sorts together past theirs. */
  charge(bytes: number): void {
    const drawn = Math.min(bytes, this.#reserved)
    this.#reserved -= drawn
    this.#charge(bytes - drawn)
  }

  /**
   * Takes at once what the sort is about to keep (counted before it keeps anything), failing as `charge`
   * does: a sort refused for lack of memory is refused before it copies anything. Its charges then draw
   * on what it reserved.
   */
  reserve(bytes: number): void {
    this.#charge(bytes)
    this.#reserved += bytes
  }

  #charge(bytes: number): void {
    if (bytes === 0) return
    if (this.#account.bytes + bytes > this.#limitBytes) {
      this.release()
      throw sortMemoryExceededError(this.#limitBytes, this.#allowDiskUse)
    }
    if (this.#pool !== undefined && !this.#pool.take(bytes)) {
      const pool = this.#pool
      this.release()
      throw sortMemoryBusyError(pool.limitBytes, pool.heldBytes)
    }
    this.#account.bytes += bytes
  }

  /** After the sort dropped documents: what it still holds. */
  reset(heldBytes: number): void {
    this.#reserved = 0
    this.#pool?.give(this.#account.bytes - heldBytes)
    this.#account.bytes = heldBytes
  }

  /** Gives back `bytes` (a document handed out), or everything (the sort is done, failed or closed). */
  release(bytes = this.#account.bytes): void {
    this.#reserved = Math.min(this.#reserved, this.#account.bytes - bytes)
    this.#pool?.give(bytes)
    this.#account.bytes -= bytes
  }
}

/** Validates the `sortMemoryLimitBytes` option of `openEmbedded`: a positive number of bytes (Infinity: no limit). */
export function toSortMemoryLimit(value: unknown, name = 'sortMemoryLimitBytes', fallback = DEFAULT_SORT_MEMORY_LIMIT_BYTES): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw invalidArgumentError(`${name} must be a positive integer (bytes) or Infinity, got ${JSON.stringify(value) ?? String(value)}`)
  }
  return value
}
