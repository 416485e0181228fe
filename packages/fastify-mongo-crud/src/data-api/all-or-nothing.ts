import type { DriverDb } from '../store/driver-db.js'
import { inTransaction, TransactionsUnavailable } from '../store/session-scope.js'

/**
 * Runs the writes of one many-document action (`insertMany`, `updateMany`, an upsert's insert) in one
 * transaction of the database, as an atomic `_batch` does (batch/run-batch.ts): the first refusal ends
 * it and nothing of it is stored. On a database without transactions (a standalone MongoDB server) it
 * runs `precheck` first, which refuses what the models refuse before anything is written, then the
 * writes one by one: a refusal only the database can make (a duplicate key met midway) leaves the
 * writes before it (docs/data-api.md says so).
 */
export async function allOrNothing<T>(db: DriverDb, writes: () => Promise<T>, precheck: () => Promise<void>): Promise<T> {
  try {
    return await inTransaction(db, writes)
  } catch (error) {
    if (!(error instanceof TransactionsUnavailable)) throw error
    await precheck()
    return writes()
  }
}
