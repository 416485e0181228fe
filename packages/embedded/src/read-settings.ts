import { DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES } from './operators/expression-memory.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES } from './sort/sort-memory-limit.js'

/**
 * Settings of one engine that its reads follow (openEmbedded's options). Its own module, so that
 * the database that holds them and the collections that read them both depend on it, and not on
 * each other.
 */
export interface ReadSettings {
  sortMemoryLimitBytes: number
  expressionMemoryLimitBytes: number
}

export const DEFAULT_READS: ReadSettings = { sortMemoryLimitBytes: DEFAULT_SORT_MEMORY_LIMIT_BYTES, expressionMemoryLimitBytes: DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES }
