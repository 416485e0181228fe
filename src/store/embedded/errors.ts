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
  const shown = Object.entries(keyValue)
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
    .join(', ')
  const message = `E11000 duplicate key error collection: ${ns} index: ${index} dup key: { ${shown} }`
  return serverError(11000, 'DuplicateKey', message, { keyPattern: keyPatternOf(keyValue), keyValue })
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

export function indexConflictError(message: string) {
  return serverError(86, 'IndexKeySpecsConflict', message)
}

/** Client-side argument errors: the driver throws these before anything reaches the server. */
export function invalidArgumentError(message: string) {
  return new MongoInvalidArgumentError(message)
}

export function closedError() {
  return new MongoInvalidArgumentError('The embedded database is closed')
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
