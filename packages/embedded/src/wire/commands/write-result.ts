import type { Document } from '../../document.js'
import { toErrorFields } from '../wire-error.js'

/**
 * Errors that fail the whole write command, not one statement: a time-out, a write to a view (166),
 * and in a transaction a write conflict (112) or the transaction gone (251), which mongod answers as
 * the command's error, labelled TransientTransactionError, so the driver runs the transaction again.
 */
const COMMAND_ERRORS: ReadonlySet<unknown> = new Set([50, 112, 166, 251])

/**
 * Runs the statements of one write command (insert, update, delete) in order, collecting
 * per-statement failures as `writeErrors` (the command itself still answers `ok: 1`). An
 * ordered command stops at its first failure, as on the server. The COMMAND_ERRORS fail the whole
 * command instead, as mongod does.
 */
export async function runStatements<T>(statements: T[], ordered: boolean, run: (statement: T, index: number) => Promise<void>): Promise<Document[]> {
  const writeErrors: Document[] = []
  for (let index = 0; index < statements.length; index++) {
    try {
      await run(statements[index]!, index)
    } catch (error) {
      if (COMMAND_ERRORS.has((error as { code?: unknown }).code)) throw error
      const { errmsg, code, codeName: _codeName, ...extra } = toErrorFields(error)
      writeErrors.push({ index, code, errmsg, ...extra })
      if (ordered) break
    }
  }
  return writeErrors
}

/** `{ n, ..., writeErrors? , ok: 1 }`: writeErrors only when there are some. */
export function writeReply(fields: Document, writeErrors: Document[]): Document {
  return writeErrors.length > 0 ? { ...fields, writeErrors, ok: 1 } : { ...fields, ok: 1 }
}
