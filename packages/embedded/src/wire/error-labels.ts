import type { Document } from '../document.js'

/**
 * mongod's "RetriableError" codes: a retryable write or a transaction's commit or abort that failed
 * with one of them (or whose write concern did) may be sent again.
 */
const RETRYABLE_CODES = new Set([6, 7, 89, 91, 134, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436])
/** Errors after which a transaction may be run again from its start, whichever command failed: LockTimeout, WriteConflict. */
const TRANSIENT_CODES = new Set([24, 112])
const NO_SUCH_TRANSACTION = 251

/**
 * The labels mongod adds to a reply (error_labels.cpp), which drivers act on rather than decide
 * themselves: `RetryableWriteError` on a retryable write, `commitTransaction` or `abortTransaction`
 * that failed with a retryable code (its own or its write concern error's), and
 * `TransientTransactionError` on a command of a transaction that failed with a transient code, or
 * with NoSuchTransaction (for a commit or abort, only without a write concern error: the commit may
 * have been applied), or, for any other command, with a retryable code.
 * Labels the reply has already (the engine's) are kept.
 */
export function withErrorLabels(reply: Document, name: string, command: Document): Document {
  const code = reply['ok'] === 1 ? undefined : Number(reply['code'])
  const concernCode = Number((reply['writeConcernError'] as Document | undefined)?.['code'])
  if (code === undefined && Number.isNaN(concernCode)) return reply
  const hasNumber = command['txnNumber'] !== undefined
  const inTransaction = hasNumber && command['autocommit'] === false
  const commitOrAbort = name === 'commitTransaction' || name === 'abortTransaction'
  const labels = new Set(Array.isArray(reply['errorLabels']) ? (reply['errorLabels'] as string[]) : [])
  const retryable = (code !== undefined && RETRYABLE_CODES.has(code)) || RETRYABLE_CODES.has(concernCode)
  if (hasNumber && (!inTransaction || commitOrAbort) && retryable) labels.add('RetryableWriteError')
  if (inTransaction && code !== undefined && isTransient(code, commitOrAbort, !Number.isNaN(concernCode))) labels.add('TransientTransactionError')
  return labels.size === 0 ? reply : { ...reply, errorLabels: [...labels] }
}

function isTransient(code: number, commitOrAbort: boolean, concernFailed: boolean): boolean {
  if (TRANSIENT_CODES.has(code)) return true
  if (commitOrAbort) return code === NO_SUCH_TRANSACTION && !concernFailed
  return code === NO_SUCH_TRANSACTION || RETRYABLE_CODES.has(code)
}
