import type { DriverDb } from '../store/driver-db.js'
import { inTransaction, TransactionsUnavailable } from '../store/session-scope.js'
import { CommandFailure } from './command-failure.js'
import type { DocumentLine } from './read-documents.js'

/** A line of the file the router's create refused, and why. */
export interface Refusal {
  line: number
  detail: string
}

export interface CreateOutcome {
  /** Empty when every document was written. */
  refusals: Refusal[]
  /**
   * The line of the refusal after which the database had ended the transaction (MongoDB ends one at
   * a refused write): later lines were checked against the model, not against the stored data.
   */
  endedAt?: number
}

/** Rolls the transaction back once every line was tried and one was refused. */
class RollBack extends Error {
  constructor(readonly outcome: CreateOutcome) {
    super('a document was refused')
  }
}

const isTransient = (error: unknown) => (error as { hasErrorLabel?: (label: string) => boolean }).hasErrorLabel?.('TransientTransactionError') === true

/**
 * Creates the document of every line with `create` in one transaction of `db` (the one an atomic
 * `_batch` runs in): every line is tried and each refusal recorded (`explain` words it; anything it
 * does not word is no refusal and ends the import), then the transaction commits if no line was
 * refused and is rolled back otherwise: the documents are written all together, or none is.
 * Trying each line inside the transaction is what checks a unique field against the stored
 * documents and the earlier lines alike. A database without transactions is a CommandFailure: the
 * import would not be all or nothing there.
 */
export async function createAllOrNothing(db: DriverDb, lines: readonly DocumentLine[], create: (document: unknown) => Promise<void>, explain: (error: unknown) => string | undefined): Promise<CreateOutcome> {
  try {
    await inTransaction(db, async () => {
      // Afresh on each run: the driver runs the function again after a transient conflict.
      const outcome: CreateOutcome = { refusals: [] }
      for (const entry of lines) {
        if ('problem' in entry) {
          outcome.refusals.push({ line: entry.line, detail: entry.problem })
          continue
        }
        try {
          await create(entry.document)
        } catch (error) {
          if (isTransient(error)) {
            // Before any refusal, a write conflict: withTransaction runs the whole import again.
            if (outcome.refusals.length === 0) throw error
            // After one, the database ended the transaction there; the model is still checked below.
            outcome.endedAt ??= outcome.refusals.at(-1)!.line
            continue
          }
          const detail = explain(error)
          if (detail === undefined) throw error
          outcome.refusals.push({ line: entry.line, detail })
        }
      }
      if (outcome.refusals.length > 0) throw new RollBack(outcome)
    })
  } catch (error) {
    if (error instanceof RollBack) return error.outcome
    if (error instanceof TransactionsUnavailable) {
      throw new CommandFailure(`import writes every document in one transaction, and ${error.message}: import into a replica set (a single-node one will do) or the embedded engine`)
    }
    throw error
  }
  return { refusals: [] }
}
