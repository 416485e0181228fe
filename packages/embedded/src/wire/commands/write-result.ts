import type { Document } from '../../document.js'
import { toErrorFields } from '../wire-error.js'

/** Errors that fail the whole write command, not one statement: a time-out, and a write to a view (166). */
const COMMAND_ERRORS: ReadonlySet<unknown> = new Set([50, 166])

/**
 * Runs the statements of one write command (insert, update, delete) in order, collecting
 * per-statement failures as `writeErrors` (the command itself still answers `ok: 1`). An
 * ordered command stops at its first failure, as on the server. A time-out (MaxTimeMSExpired, an
 * interruption) and a write to a view (CommandNotSupportedOnView) fail the whole command instead,
 * as mongod does.
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
