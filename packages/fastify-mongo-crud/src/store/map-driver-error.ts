import { StoreError } from '../errors.js'
import type { Document, DriverCursor } from './driver-db.js'
import { asUnavailable, hasLabel } from './store-unavailable.js'

/** Driver / engine error codes we answer on purpose; everything else propagates unchanged (a 500). */
const DUPLICATE_KEY = 11000
const TOO_LARGE = new Set([10334, 17419, 17420, 2])
const TIME_LIMIT = 50
/** QueryExceededMemoryLimitNoDiskUseAllowed: a sort without an index past the server's (or engine's) memory limit. */
const SORT_MEMORY = 292
/**
 * TemporarilyUnavailable: the engine's sorts without an index together hold all the memory they may
 * (`totalSortMemoryLimitBytes`; on MongoDB, cache pressure). Either way the same request may succeed later.
 */
const TEMPORARILY_UNAVAILABLE = 365
/** OutOfDiskSpace: the database had no room to store a write (a full disk); nothing of it was stored. */
const OUT_OF_DISK_SPACE = 14031

function mapDriverError(error: unknown, operation: 'read' | 'write'): unknown {
  if (typeof error !== 'object' || error === null) return error
  // Inside a transaction (an atomic batch) the driver's `withTransaction` runs it again: it stays its own.
  if (hasLabel(error, 'TransientTransactionError')) return error
  const unavailable = asUnavailable(error, operation)
  if (unavailable !== undefined) return unavailable
  const code = (error as { code?: unknown }).code
  const message = (error as { message?: unknown }).message
  if (code === DUPLICATE_KEY) return new StoreError('FMC_ERR_STORE_DUPLICATE', 'Duplicate key', { cause: error })
  if (code === TIME_LIMIT) return new StoreError('FMC_ERR_STORE_TIMEOUT', 'Query exceeded its time limit', { cause: error })
  if (code === SORT_MEMORY) return new StoreError('FMC_ERR_STORE_SORT_MEMORY', 'Sort exceeded the memory limit', { cause: error })
  if (code === TEMPORARILY_UNAVAILABLE) return new StoreError('FMC_ERR_STORE_BUSY', 'The database is temporarily out of memory for this query', { cause: error })
  if (code === OUT_OF_DISK_SPACE) return new StoreError('FMC_ERR_STORE_OUT_OF_SPACE', 'The database has no room to store the write', { cause: error })
  // Code 2 (BadValue) is also used for other things: only a size complaint counts as too large.
  if (typeof code === 'number' && TOO_LARGE.has(code) && (code !== 2 || /too large|size/i.test(String(message)))) {
    return new StoreError('FMC_ERR_STORE_TOO_LARGE', 'Document too large', { cause: error })
  }
  if (error instanceof RangeError && /size|too large/i.test(String(message))) {
    return new StoreError('FMC_ERR_STORE_TOO_LARGE', 'Document too large', { cause: error })
  }
  return error
}

/** Runs a store read, translating engine errors at the boundary. */
export async function translating<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation()
  } catch (error) {
    throw mapDriverError(error, 'read')
  }
}

/** Runs a store write, translating engine errors at the boundary: one cut off on its way tells its outcome is unknown. */
export async function translatingWrite<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation()
  } catch (error) {
    throw mapDriverError(error, 'write')
  }
}

/**
 * Yields the documents of the cursor `open` makes as `convert` makes them, translating engine errors;
 * the cursor is closed however the loop ends. Opened inside: a closed engine refuses at once, where
 * the driver's cursor only fails on its first read.
 */
export async function* translatingCursor<T>(open: () => DriverCursor, convert: (doc: Document) => T): AsyncGenerator<T> {
  let cursor: DriverCursor | undefined
  try {
    cursor = open()
    for await (const doc of cursor) yield convert(doc)
  } catch (error) {
    throw mapDriverError(error, 'read')
  } finally {
    await cursor?.close()
  }
}
