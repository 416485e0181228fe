import { hostname } from 'node:os'
import { MongoInvalidArgumentError, MongoNotConnectedError, MongoServerError } from 'mongodb'
import { formatValue } from './format-value.js'

/**
 * Errors the engine raises, built with the official driver's own classes and the server's codes,
 * so the store layer maps engine and server failures with one code path.
 */
export function serverError(code: number, codeName: string, message: string, extra: Record<string, unknown> = {}) {
  return new MongoServerError({ message, errmsg: message, code, codeName, ok: 0, ...extra })
}

export function duplicateKeyError(ns: string, index: string, keyValue: Record<string, unknown>) {
  const message = `E11000 duplicate key error collection: ${ns} index: ${index} dup key: ${showKey(keyValue)}`
  return serverError(11000, 'DuplicateKey', message, { keyPattern: keyPatternOf(keyValue), keyValue })
}

function showKey(keyValue: Record<string, unknown>): string {
  const shown = Object.entries(keyValue)
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
    .join(', ')
  return `{ ${shown} }`
}

function keyPatternOf(keyValue: Record<string, unknown>) {
  return Object.fromEntries(Object.keys(keyValue).map((k) => [k, 1]))
}

export function documentTooLargeError(size: number, max: number) {
  return serverError(10334, 'BSONObjectTooLarge', `BSONObj size: ${size} (0x${size.toString(16)}) is invalid. Size must be between 0 and ${max}(16MB)`)
}

export function maxTimeExpiredError() {
  return serverError(50, 'MaxTimeMSExpired', 'operation exceeded time limit')
}

export function badValueError(message: string) {
  return serverError(2, 'BadValue', message)
}

export function failedToParseError(message: string) {
  return serverError(9, 'FailedToParse', message)
}

export function conflictingUpdateError(message: string) {
  return serverError(40, 'ConflictingUpdateOperators', message)
}

export function noSuchKeyError(message: string) {
  return serverError(4, 'NoSuchKey', message)
}

export function incompatibleCollationVersionError(message: string) {
  return serverError(161, 'IncompatibleCollationVersion', message)
}

export function typeMismatchError(message: string) {
  return serverError(14, 'TypeMismatch', message)
}

export function pathNotViableError(message: string) {
  return serverError(28, 'PathNotViable', message)
}

export function immutableFieldError(message: string) {
  return serverError(66, 'ImmutableField', message)
}

export function invalidIdError(message: string) {
  return serverError(53, 'InvalidIdField', message)
}

export function dollarPrefixedFieldError(message: string) {
  return serverError(52, 'DollarPrefixedFieldName', message)
}

export function indexConflictError(message: string) {
  return serverError(86, 'IndexKeySpecsConflict', message)
}

/** A stage an update pipeline cannot run, or an option the command does not take with it (72 InvalidOptions). */
export function invalidOptionsError(message: string) {
  return serverError(72, 'InvalidOptions', message)
}

/** A pipeline stage that is not one object with one field (40323). */
export function stageShapeError() {
  return serverError(40323, 'Location40323', 'A pipeline stage specification object must contain exactly one field.')
}

/** A pipeline stage name MongoDB does not know (40324). */
export function unknownStageError(name: string) {
  return serverError(40324, 'Location40324', `Unrecognized pipeline stage name: '${name}'`)
}

/** `$$name` of a variable nothing defined: the server's 17276. */
function undefinedVariableError(message: string) {
  return serverError(17276, 'Location17276', message)
}

/** A command `let` that names a system variable (4738901). */
export function internalConstantError(name: string) {
  return serverError(4738901, 'Location4738901', `Attempt to set internal constant: ${name}`)
}

/** A command `let` expression that reads a field (4890500); the server's message, its missing space included. */
export function letReadsFieldError() {
  return serverError(4890500, 'Location4890500', 'Command let Expression tried to access a field, but this is not allowed becauseCommand let Expressions run before the query examines any documents.')
}

/**
 * A sort without an index needs more memory than its limit (sort-memory-limit.ts): the server's
 * 292 QueryExceededMemoryLimitNoDiskUseAllowed, with its message. The engine has no external sort,
 * so `allowDiskUse` would not help: add an index on the sort field, a limit, or a narrower filter.
 * An aggregation that asked for `allowDiskUse` is told so, with the same code.
 */
export function sortMemoryExceededError(limitBytes: number, allowDiskUse = false) {
  const message = allowDiskUse
    ? `Sort exceeded memory limit of ${limitBytes} bytes; the embedded engine has no external sort, so allowDiskUse does not lift the limit.`
    : `Sort exceeded memory limit of ${limitBytes} bytes, but did not opt in to external sorting.`
  return serverError(292, 'QueryExceededMemoryLimitNoDiskUseAllowed', message)
}

/**
 * A sort without an index within its own limit, refused because the engine's sorts together already
 * hold what they may (`totalSortMemoryLimitBytes`, sort-memory-limit.ts): MongoDB's 365
 * TemporarilyUnavailable, which says the same operation may succeed later, once others are done.
 */
export function sortMemoryBusyError(totalBytes: number, heldBytes: number) {
  return serverError(
    365,
    'TemporarilyUnavailable',
    `Sort needs more memory than is free: the engine's sorts hold ${heldBytes} of the ${totalBytes} bytes they may hold together; retry once others are done`,
  )
}

/**
 * A value an expression or an accumulator would build is past its memory limit, or the process heap
 * is nearly full (expression-memory.ts): the server's 146 ExceededMemoryLimit, which MongoDB answers
 * when `$range`, `$push` or `$addToSet` would pass their 100 MB limits.
 */
export function exceededMemoryLimitError(message: string) {
  return serverError(146, 'ExceededMemoryLimit', message)
}

/** An index MongoDB refuses to create (an empty name, or a NUL byte in it): 67 CannotCreateIndex. */
export function cannotCreateIndexError(message: string) {
  return serverError(67, 'CannotCreateIndex', message)
}

/** Client-side argument errors: the driver throws these before anything reaches the server. */
export function invalidArgumentError(message: string) {
  return new MongoInvalidArgumentError(message)
}

/**
 * A closed engine used: what the driver throws for a closed client (`MongoNotConnectedError`), so that
 * a caller tells a database out of reach from a bad argument the same way for both.
 */
export function closedError() {
  return new MongoNotConnectedError('The embedded database is closed')
}

/** Another engine holds the data directory: mongod's answer for a locked dbpath (98 DBPathInUse). */
export function directoryInUseError(directory: string, pid: number | undefined, lockFile: string, host?: string) {
  const foreign = host !== undefined && host !== hostname()
  const holder = pid === undefined ? 'another process' : foreign ? `process ${pid} on host ${host}` : pid === process.pid ? `this process (process ${pid})` : `process ${pid}`
  const stale = foreign ? ` If that host no longer runs it, remove ${lockFile}.` : pid === undefined ? ` If no process uses the directory, remove ${lockFile}.` : ''
  return serverError(98, 'DBPathInUse', `The data directory ${directory} is in use by ${holder} (lock file ${lockFile}). One directory is served by one process: connect other processes to its wire server (fastify-mongo-crud-db) instead of opening the directory again.${stale}`)
}

/**
 * A unique index, loaded from disk, finds two stored documents with one key (left by two processes
 * writing one directory before it was locked). Stored data breaks the index's promise, so the
 * collection is unusable until repaired: the server's 301 DataCorruptionDetected.
 */
export function duplicatesOnDiskError(ns: string, index: string, keyValue: Record<string, unknown>) {
  const message = `Unique index ${index} of collection ${ns} holds duplicates on disk: more than one document has ${showKey(keyValue)}. Drop the index, remove the duplicates, then create the index again.`
  return serverError(301, 'DataCorruptionDetected', message, { keyValue })
}

/**
 * A regular expression the engine cannot compile. MongoDB (PCRE) answers a pattern it cannot compile
 * with code 51091 "Regular expression is invalid: …"; the engine matches with RE2, so this is also its
 * answer to what PCRE has and RE2 lacks (lookarounds, backreferences): the closest real error.
 */
export function invalidRegexError(reason: string) {
  return serverError(51091, 'Location51091', `Regular expression is invalid: the pattern ${reason}`)
}

/** The server's answer to a letter outside `imsx` in `$options` ("invalid flag in regex options: q"). */
export function invalidRegexOptionError(reason: string) {
  return serverError(51108, 'Location51108', reason)
}

/** The server's answer to a bad regex in `$regexMatch`, `$regexFind` or `$regexFindAll` (code 51111). */
export function invalidExpressionRegexError(op: string, reason: string) {
  return serverError(51111, 'Location51111', `Invalid Regex in ${op}: the pattern ${reason}`)
}

/** An error out of mingo as the server's: ours (already coded, e.g. an invalid regex) as is, else BadValue. */
export function asServerError(error: unknown) {
  if (error instanceof MongoServerError) return error
  const message = (error as Error).message
  if (message.startsWith('Use of undefined variable: ')) return undefinedVariableError(message)
  return badValueError(message)
}

/** A server error known only by its number (`uassert(51183, ...)`): codeName `Location<code>`, as the server names it. */
export function locationError(code: number, message: string) {
  return serverError(code, `Location${code}`, message)
}

export function invalidNamespaceError(message: string) {
  return serverError(73, 'InvalidNamespace', message)
}

export function mergeNoMatchError() {
  const message = '$merge could not find a matching document in the target collection for at least one document in the source collection'
  return serverError(13113, 'MergeStageNoMatchingDocument', message)
}

export function commandNotSupportedOnViewError(ns: string) {
  return serverError(166, 'CommandNotSupportedOnView', `Namespace ${ns} is a view, not a collection`)
}

export function namespaceExistsError(ns: string) {
  return serverError(48, 'NamespaceExists', `Collection ${ns} already exists.`)
}

/** What a transaction cannot do (define collections or indexes), as the server refuses it. */
export function operationNotSupportedInTransactionError(what: string) {
  return serverError(263, 'OperationNotSupportedInTransaction', `Cannot run ${what} in a multi-document transaction.`)
}

/**
 * The transaction an operation names is no longer open (aborted, expired, or never started):
 * `TransientTransactionError`, as the server labels it, so the driver's `withTransaction` retries.
 */
export function noSuchTransactionError(txnNumber: number | string, why = 'has been aborted') {
  const error = serverError(251, 'NoSuchTransaction', `Transaction with { txnNumber: ${txnNumber} } ${why}.`)
  error.addErrorLabel('TransientTransactionError')
  return error
}

/**
 * A transaction's write to a document that another write changed, and committed, after the
 * transaction's snapshot: 112 WriteConflict, labelled `TransientTransactionError` as the server does,
 * so `withTransaction` (the driver's and the engine's) runs the transaction again on fresh data.
 */
export function writeConflictError() {
  const error = serverError(112, 'WriteConflict', 'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.')
  error.addErrorLabel('TransientTransactionError')
  return error
}

/**
 * A write the storage has no room for (a full disk, a used-up quota, a file size limit): MongoDB's
 * 14031 OutOfDiskSpace. Nothing of the write was stored; reads go on.
 */
export function outOfDiskSpaceError(message: string) {
  return serverError(14031, 'OutOfDiskSpace', message)
}

/** A data file that does not hold what the database records of it (a partial copy): 301 DataCorruptionDetected. */
export function damagedDataFileError(message: string) {
  return serverError(301, 'DataCorruptionDetected', message)
}

/** A change stream resumed from a change the change log no longer keeps (watch/change-stream.ts). */
export function changeStreamHistoryLostError(message: string) {
  return serverError(286, 'ChangeStreamHistoryLost', message)
}

/** A change stream that cannot go on: a resume token this engine never issued. */
export function changeStreamFatalError(message: string) {
  return serverError(280, 'ChangeStreamFatalError', message)
}

/** A transaction or retryable write numbered below the session's latest: the driver has moved on (225 TransactionTooOld). */
export function transactionTooOldError(txnNumber: number, latest: number) {
  return serverError(225, 'TransactionTooOld', `Cannot start transaction ${txnNumber} on session because a newer transaction ${latest} has already started.`)
}

/** A command that is no write sent with a transaction number outside a transaction (50768, as mongod). */
export function notARetryableWriteError(command: string) {
  return serverError(50768, 'NotARetryableWriteCommand', `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${command} is not a retryable write command.`)
}

/** `replSetInitiate` on a set that is initiated, as every set the wire server presents is from its start (23). */
export function alreadyInitializedError() {
  return serverError(23, 'AlreadyInitialized', 'already initialized')
}

/** A replica set command sent to a server started without `--replSet` (76, as a standalone mongod). */
export function noReplicationEnabledError() {
  return serverError(76, 'NoReplicationEnabled', 'not running with --replSet')
}

/** A change stream asked (`required`) for a document before or after a change that the collection does not keep (47). */
export function noMatchingDocumentError(message: string) {
  return serverError(47, 'NoMatchingDocument', message)
}

/** A collection an operation needs does not exist (26). */
export function namespaceNotFoundError(message: string) {
  return serverError(26, 'NamespaceNotFound', message)
}

/** An operation that cannot be done to what it names (20). */
export function illegalOperationError(message: string) {
  return serverError(20, 'IllegalOperation', message)
}
