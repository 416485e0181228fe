import { invalidArgumentError, sortMemoryExceededError } from '../errors.js'

/** MongoDB's default for a blocking sort (`internalQueryMaxBlockingSortMemoryUsageBytes`): 100 MB. */
export const DEFAULT_SORT_MEMORY_LIMIT_BYTES = 100 * 1024 * 1024

/**
 * The memory a sort without an index may hold: the BSON bytes of the documents it keeps to sort
 * (a find's, or an aggregation's `$sort` stage, aggregate-documents.ts).
 * An unbounded sort keeps every match; a sort with a limit keeps at most about twice skip + limit
 * documents (sort-documents.ts). Past the limit the sort fails with the server's error (292
 * QueryExceededMemoryLimitNoDiskUseAllowed) instead of growing the heap: the engine has no
 * external (on-disk) sort.
 */
export class SortMemoryLimit {
  readonly #limitBytes: number
  readonly #allowDiskUse: boolean
  #heldBytes = 0

  /** `allowDiskUse` (an aggregation's option) does not lift the limit: it only changes the error's message. */
  constructor(limitBytes: number, allowDiskUse = false) {
    this.#limitBytes = limitBytes
    this.#allowDiskUse = allowDiskUse
  }

  /** Counts `bytes` more as held; throws once the total is past the limit. */
  charge(bytes: number): void {
    this.#heldBytes += bytes
    if (this.#heldBytes > this.#limitBytes) throw sortMemoryExceededError(this.#limitBytes, this.#allowDiskUse)
  }

  /** After the sort dropped documents: what it still holds. */
  reset(heldBytes: number): void {
    this.#heldBytes = heldBytes
  }
}

/** Validates the `sortMemoryLimitBytes` option of `openEmbedded`: a positive number of bytes (Infinity: no limit). */
export function toSortMemoryLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_SORT_MEMORY_LIMIT_BYTES
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || (Number.isFinite(value) && !Number.isInteger(value))) {
    throw invalidArgumentError(`sortMemoryLimitBytes must be a positive integer (bytes) or Infinity, got ${JSON.stringify(value) ?? String(value)}`)
  }
  return value
}
