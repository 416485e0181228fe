import { DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES } from './operators/expression-memory.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES, DEFAULT_TOTAL_SORT_MEMORY_LIMIT_BYTES, SortMemoryPool } from './sort/sort-memory-limit.js'

/**
 * Settings of one engine that its reads follow (openEmbedded's options). Its own module, so that
 * the database that holds them and the collections that read them both depend on it, and not on
 * each other.
 */
export interface ReadSettings {
  sortMemoryLimitBytes: number
  /** What all the engine's sorts without an index hold together (`totalSortMemoryLimitBytes`): one pool per engine. */
  sortMemoryPool: SortMemoryPool
  expressionMemoryLimitBytes: number
}

export const DEFAULT_READS: ReadSettings = {
  sortMemoryLimitBytes: DEFAULT_SORT_MEMORY_LIMIT_BYTES,
  sortMemoryPool: new SortMemoryPool(DEFAULT_TOTAL_SORT_MEMORY_LIMIT_BYTES),
  expressionMemoryLimitBytes: DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES,
}
