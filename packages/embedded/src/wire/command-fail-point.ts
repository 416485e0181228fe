import { type FailCommandData, failCommandFor } from '../fail-points.js'
import type { Document } from '../index.js'

/** Thrown out of command dispatch to make the connection close without a reply (`closeConnection`). */
export class CloseConnection extends Error {
  constructor() {
    super('failCommand fail point: closing the connection')
  }
}

/** Commands the `failCommand` fail point never fails: turning it off, and the handshake. */
const EXEMPT = new Set(['configureFailPoint', 'hello', 'isMaster', 'ismaster'])

/** The application name each connection gave in its handshake, per server (bounded: oldest forgotten). */
const appNames = new WeakMap<object, Map<number, string>>()
const MAX_REMEMBERED = 10_000

/** Remembers `client.application.name` of a handshake, for fail points restricted by `appName`. */
export function rememberAppName(server: object, connectionId: number, command: Document): void {
  const name = ((command['client'] as Document | undefined)?.['application'] as Document | undefined)?.['name']
  if (typeof name !== 'string') return
  let names = appNames.get(server)
  if (!names) {
    names = new Map()
    appNames.set(server, names)
  }
  names.set(connectionId, name)
  if (names.size > MAX_REMEMBERED) names.delete(names.keys().next().value!)
}

/** What `failCommand` does to this command on this connection, if anything (counts it when it acts). */
export function commandFailure(server: object, connectionId: number, name: string): FailCommandData | undefined {
  if (EXEMPT.has(name)) return undefined
  return failCommandFor(name, appNames.get(server)?.get(connectionId))
}

/** The reply of a command the fail point fails with `errorCode`, as mongod's. */
export function failedReply(failure: FailCommandData, code: number): Document {
  const reply: Document = { ok: 0, errmsg: failure.errmsg ?? "Failing command via 'failCommand' failpoint", code, codeName: CODE_NAMES[code] ?? `Location${code}` }
  if (failure.errorLabels) reply['errorLabels'] = failure.errorLabels
  return reply
}

/** A successful reply with the fail point's write concern error (the command did run). */
export function withWriteConcernError(reply: Document, failure: FailCommandData): Document {
  if (!failure.writeConcernError || reply['ok'] !== 1) return reply
  const withError: Document = { ...reply, writeConcernError: failure.writeConcernError }
  if (failure.errorLabels) withError['errorLabels'] = failure.errorLabels
  return withError
}

/** Names of the codes tests make `failCommand` answer most; others are named as the server names unknown codes. */
const CODE_NAMES: Record<number, string> = {
  1: 'InternalError',
  2: 'BadValue',
  6: 'HostUnreachable',
  7: 'HostNotFound',
  8: 'UnknownError',
  9: 'FailedToParse',
  11: 'UserNotFound',
  13: 'Unauthorized',
  14: 'TypeMismatch',
  18: 'AuthenticationFailed',
  20: 'IllegalOperation',
  24: 'LockTimeout',
  26: 'NamespaceNotFound',
  43: 'CursorNotFound',
  50: 'MaxTimeMSExpired',
  59: 'CommandNotFound',
  64: 'WriteConcernFailed',
  89: 'NetworkTimeout',
  91: 'ShutdownInProgress',
  96: 'OperationFailed',
  100: 'UnsatisfiableWriteConcern',
  112: 'WriteConflict',
  121: 'DocumentValidationFailure',
  134: 'ReadConcernMajorityNotAvailableYet',
  189: 'PrimarySteppedDown',
  251: 'NoSuchTransaction',
  262: 'ExceededTimeLimit',
  9001: 'SocketException',
  10107: 'NotWritablePrimary',
  11000: 'DuplicateKey',
  11600: 'InterruptedAtShutdown',
  11602: 'InterruptedDueToReplStateChange',
  13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary',
}
