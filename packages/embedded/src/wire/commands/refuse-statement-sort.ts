import type { Document } from '../../document.js'
import { WireError } from '../wire-error.js'

/**
 * `sort` in an update statement came with MongoDB 8.0. The engine reports 7.0, whose command
 * parser fails the whole command on it (no statement runs, the reply is ok: 0), so drivers and the
 * unified tests see what 7.0 does rather than a write error.
 */
export function refuseStatementSort(command: Document): void {
  const statements: unknown = command['updates']
  if (!Array.isArray(statements)) return
  if (statements.some((statement) => typeof statement === 'object' && statement !== null && (statement as Document)['sort'] !== undefined)) {
    throw new WireError(40415, 'Location40415', "BSON field 'update.updates.sort' is an unknown field.")
  }
}
