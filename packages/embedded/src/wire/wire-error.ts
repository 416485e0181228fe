import { MongoError, MongoServerError } from 'mongodb'
import type { Document } from '../document.js'

/**
 * An error the wire server answers with `{ ok: 0, errmsg, code, codeName }`. Engine errors
 * (the driver's MongoServerError) already carry a code; anything else becomes one here.
 */
export class WireError extends Error {
  readonly code: number
  readonly codeName: string

  constructor(code: number, codeName: string, message: string) {
    super(message)
    this.code = code
    this.codeName = codeName
  }
}

export const badValue = (message: string) => new WireError(2, 'BadValue', message)
export const failedToParse = (message: string) => new WireError(9, 'FailedToParse', message)
export const typeMismatch = (message: string) => new WireError(14, 'TypeMismatch', message)
export const illegalOperation = (message: string) => new WireError(20, 'IllegalOperation', message)
export const namespaceNotFound = (message: string) => new WireError(26, 'NamespaceNotFound', message)
export const indexNotFound = (message: string) => new WireError(27, 'IndexNotFound', message)
export const cursorNotFound = (message: string) => new WireError(43, 'CursorNotFound', message)
export const operationFailed = (message: string) => new WireError(96, 'OperationFailed', message)
export const commandNotFound = (name: string) => new WireError(59, 'CommandNotFound', `no such command: '${name}'`)
export const invalidNamespace = (message: string) => new WireError(73, 'InvalidNamespace', message)
export const invalidBson = (message: string) => new WireError(22, 'InvalidBSON', message)
export const protocolError = (message: string) => new WireError(17132, 'Location17132', message)
/** Every failed login, whatever failed (no such user, a wrong password, a bad message), as mongod answers. */
export const authenticationFailed = () => new WireError(18, 'AuthenticationFailed', 'Authentication failed.')
export const unauthorized = (message: string) => new WireError(13, 'Unauthorized', message)
export const userNotFound = (message: string) => new WireError(11, 'UserNotFound', message)
export const roleNotFound = (message: string) => new WireError(31, 'RoleNotFound', message)
export const mechanismUnavailable = (message: string) => new WireError(334, 'MechanismUnavailable', message)
export const interrupted = (message: string) => new WireError(11601, 'Interrupted', message)

/** The fields of a failed command's reply, for any thrown value. */
export function toErrorFields(error: unknown): Document {
  if (error instanceof WireError) return { errmsg: error.message, code: error.code, codeName: error.codeName }
  if (error instanceof MongoServerError) {
    const fields: Document = { errmsg: error.errmsg ?? error.message, code: error.code, codeName: error.codeName }
    if (error.keyValue !== undefined) fields['keyValue'] = error.keyValue
    if (error['keyPattern'] !== undefined) fields['keyPattern'] = error['keyPattern']
    // `TransientTransactionError` on NoSuchTransaction: what makes the driver's withTransaction retry.
    if (error.errorLabels.length > 0) fields['errorLabels'] = error.errorLabels
    return fields
  }
  // Client-side argument errors of the engine are the server's BadValue.
  if (error instanceof MongoError) return { errmsg: error.message, code: 2, codeName: 'BadValue' }
  if (error instanceof RangeError) return { errmsg: error.message, code: 2, codeName: 'BadValue' }
  return { errmsg: error instanceof Error ? error.message : String(error), code: 1, codeName: 'InternalError' }
}

export function toErrorReply(error: unknown): Document {
  return { ok: 0, ...toErrorFields(error) }
}
