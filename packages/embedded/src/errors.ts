import { hostname } from 'node:os'
import { MongoInvalidArgumentError, MongoServerError } from 'mongodb'
import { formatValue } from './format-value.js'

/**
 * Errors the engine raises, built with the official driver's own classes and the server's codes,
 * so the store layer maps engine and server failures with one code path.
 */
function serverError(code: number, codeName: string, message: string, extra: Record<string, unknown> = {}) {
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

/**
 * A sort without an index needs more memory than its limit (sort-memory-limit.ts): the server's
 * 292 QueryExceededMemoryLimitNoDiskUseAllowed, with its message. The engine has no external sort,
 * so `allowDiskUse` would not help: add an index on the sort field, a limit, or a narrower filter.
 */
export function sortMemoryExceededError(limitBytes: number) {
  return serverError(292, 'QueryExceededMemoryLimitNoDiskUseAllowed', `Sort exceeded memory limit of ${limitBytes} bytes, but did not opt in to external sorting.`)
}

/** Client-side argument errors: the driver throws these before anything reaches the server. */
export function invalidArgumentError(message: string) {
  return new MongoInvalidArgumentError(message)
}

export function closedError() {
  return new MongoInvalidArgumentError('The embedded database is closed')
}

/** Another engine holds the data directory: mongod's answer for a locked dbpath (98 DBPathInUse). */
export function directoryInUseError(directory: string, pid: number | undefined, lockFile: string, host?: string) {
  const foreign = host !== undefined && host !== hostname()
  const holder = pid === undefined ? 'another process' : foreign ? `process ${pid} on host ${host}` : pid === process.pid ? `this process (process ${pid})` : `process ${pid}`
  const stale = foreign ? ` If that host no longer runs it, remove ${lockFile}.` : pid === undefined ? ` If no process uses the directory, remove ${lockFile}.` : ''
  return serverError(98, 'DBPathInUse', `The data directory ${directory} is in use by ${holder} (lock file ${lockFile}). One directory is served by one process: connect other processes to its wire server (fastify-mongo-crud db) instead of opening the directory again.${stale}`)
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
  return badValueError((error as Error).message)
}
