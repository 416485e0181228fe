import { toChangeRetention } from './changes/change-retention.js'
import { EmbeddedDb } from './embedded-db.js'
import { toExpressionMemoryLimit } from './operators/expression-memory.js'
import { DEFAULT_TOTAL_SORT_MEMORY_LIMIT_BYTES, SortMemoryPool, toSortMemoryLimit } from './sort/sort-memory-limit.js'
import { LmdbStorage } from './storage/lmdb-storage.js'
import { MemoryStorage } from './storage/memory-storage.js'

export { EmbeddedCollection } from './embedded-collection.js'
export { EmbeddedDb } from './embedded-db.js'

export interface EmbeddedOptions {
  /** A directory for durable storage (created if missing). Without it, data lives in memory. */
  path?: string
  /**
   * The memory, in bytes of BSON, that one sort without an index may hold (default 100 MB, as
   * MongoDB's). An unbounded sort holds every match; past this, the query fails with code 292
   * QueryExceededMemoryLimitNoDiskUseAllowed. `Infinity` lifts the limit.
   */
  sortMemoryLimitBytes?: number
  /**
   * The memory, counted the same way, that all the engine's sorts without an index may hold
   * together (default 100 MB): concurrent sorts share it. A sort within its own limit that would
   * take the total past this fails with code 365 TemporarilyUnavailable (retry later); one that
   * alone needs more than this fails with 292, as past its own limit. `Infinity` lifts the limit.
   */
  totalSortMemoryLimitBytes?: number
  /**
   * The memory one value that an aggregation's expression or accumulator builds may take (default
   * 100 MB, MongoDB's limit for `$range`, `$push` and `$addToSet`; a string at most 16 MiB): past it,
   * the aggregation fails with code 146 ExceededMemoryLimit. `Infinity` lifts the limit.
   */
  expressionMemoryLimitBytes?: number
  /**
   * How much of the change log (`collection.watch()`) is kept for resuming: at most `events`
   * changes (default 10,000), and, with `ms`, none older than that. A stream resumed from a
   * change no longer kept fails with code 286 ChangeStreamHistoryLost.
   */
  changeRetention?: { events?: number, ms?: number }
}

/** Database name used in namespaces and error messages (`embedded.<collection>`). */
const DATABASE_NAME = 'embedded'

/** Opens the embedded engine: in memory, or durable on disk under `options.path`. */
export async function openEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedDb> {
  // Validated before the directory is opened (and locked).
  const sortMemoryLimitBytes = toSortMemoryLimit(options.sortMemoryLimitBytes)
  const sortMemoryPool = new SortMemoryPool(toSortMemoryLimit(options.totalSortMemoryLimitBytes, 'totalSortMemoryLimitBytes', DEFAULT_TOTAL_SORT_MEMORY_LIMIT_BYTES))
  const expressionMemoryLimitBytes = toExpressionMemoryLimit(options.expressionMemoryLimitBytes)
  const changeRetention = toChangeRetention(options.changeRetention)
  const storage = options.path === undefined ? new MemoryStorage() : new LmdbStorage(options.path)
  storage.changeLog.retain(changeRetention)
  return new EmbeddedDb(storage, DATABASE_NAME, undefined, { sortMemoryLimitBytes, sortMemoryPool, expressionMemoryLimitBytes })
}
