import { type Document, isNonArrayObject } from '../document.js'
import { serverError } from '../errors.js'
import { badValue, typeMismatch } from './wire-error.js'

/**
 * MongoDB's `failCommand` test fail point: the wire server fails the commands named in
 * `data.failCommands` (an error code, a closed connection, or a write concern error added to the
 * reply of a command that ran), after holding them `blockTimeMS` first with `blockConnection`, in the modes `alwaysOn`, `off`, `{ times: n }` (the next n matching
 * commands) and `{ skip: n }` (all but the next n). It acts on command dispatch only, never on
 * `configureFailPoint` or the handshake; in-process calls are not commands and never fail. Like a
 * mongod's fail points, it is process-wide: every wire server of the process obeys it.
 */
interface FailCommandData {
  failCommands: string[]
  errorCode?: number
  errmsg?: string
  closeConnection?: boolean
  writeConcernError?: Document
  errorLabels?: string[]
  /** Only commands of connections whose handshake gave this application name fail. */
  appName?: string
  /** Milliseconds the command waits before anything else of the fail point (`blockConnection: true`). */
  blockTimeMS?: number
}

const DATA_FIELDS = new Set(['failCommands', 'errorCode', 'errmsg', 'closeConnection', 'writeConcernError', 'errorLabels', 'appName', 'blockConnection', 'blockTimeMS'])

interface FailCommandState {
  data: FailCommandData
  /** Matching commands still to fail (Infinity: `alwaysOn`, `{ skip }`). */
  times: number
  /** Matching commands still to let through first. */
  skip: number
}
let failCommand: FailCommandState | undefined

/** `{ configureFailPoint: 'failCommand', mode, data }`. Unknown modes and `data` fields are BadValue. */
export function configureFailCommand(mode: unknown, data: unknown): void {
  if (mode === 'off') {
    failCommand = undefined
    return
  }
  const counts = parseMode(mode)
  const checked = parseData(data)
  failCommand = counts.times > 0 ? { data: checked, ...counts } : undefined
}

/** What the fail point does to this command, if anything; counts it against `times` or `skip`. */
function failCommandFor(command: string, appName: string | undefined): FailCommandData | undefined {
  const state = failCommand
  if (!state?.data.failCommands.includes(command)) return undefined
  if (state.data.appName !== undefined && state.data.appName !== appName) return undefined
  if (state.skip > 0) {
    state.skip--
    return undefined
  }
  state.times--
  if (state.times <= 0) failCommand = undefined
  return state.data
}

function parseMode(mode: unknown): { times: number, skip: number } {
  if (mode === 'alwaysOn') return { times: Number.POSITIVE_INFINITY, skip: 0 }
  if (isNonArrayObject(mode) && Object.keys(mode).length === 1) {
    const [key, value] = Object.entries(mode)[0]!
    const count = Number(value)
    if ((key === 'times' || key === 'skip') && Number.isInteger(count) && count >= 0) {
      return key === 'times' ? { times: count, skip: 0 } : { times: Number.POSITIVE_INFINITY, skip: count }
    }
  }
  throw badValue(`Fail point mode must be 'alwaysOn', 'off', { times: n } or { skip: n }, got ${JSON.stringify(mode)}`)
}

function parseData(data: unknown): FailCommandData {
  if (!isNonArrayObject(data)) throw typeMismatch("failCommand: 'data' must be an object")
  const spec = data as Document
  for (const key of Object.keys(spec)) {
    if (!DATA_FIELDS.has(key)) throw badValue(`failCommand: data field '${key}' is not supported by the embedded engine`)
  }
  const { failCommands, errorCode, errmsg, closeConnection, writeConcernError, errorLabels, appName, blockConnection, blockTimeMS } = spec
  if (!Array.isArray(failCommands) || failCommands.some((c) => typeof c !== 'string')) throw badValue("failCommand: 'data.failCommands' must be an array of command names")
  const checked: FailCommandData = { failCommands: failCommands as string[] }
  if (errorCode !== undefined) {
    if (!Number.isInteger(Number(errorCode))) throw typeMismatch("failCommand: 'data.errorCode' must be an integer")
    checked.errorCode = Number(errorCode)
  }
  if (errmsg !== undefined) checked.errmsg = String(errmsg)
  if (closeConnection !== undefined) checked.closeConnection = closeConnection === true
  if (writeConcernError !== undefined) {
    if (typeof writeConcernError !== 'object' || writeConcernError === null) throw typeMismatch("failCommand: 'data.writeConcernError' must be an object")
    checked.writeConcernError = writeConcernError as Document
  }
  if (errorLabels !== undefined) {
    if (!Array.isArray(errorLabels) || errorLabels.some((l) => typeof l !== 'string')) throw typeMismatch("failCommand: 'data.errorLabels' must be an array of strings")
    checked.errorLabels = errorLabels as string[]
  }
  if (appName !== undefined) checked.appName = String(appName)
  if (blockConnection === true) {
    const ms = Number(blockTimeMS)
    if (!Number.isInteger(ms) || ms < 0) throw badValue("failCommand: 'data.blockTimeMS' must be a non-negative integer with blockConnection")
    checked.blockTimeMS = ms
  }
  return checked
}

/**
 * MongoDB's `failGetMoreAfterCursorCheckout` fail point: the next getMores (per its mode) whose
 * cursor exists fail with `data.errorCode`, the cursor kept, as if the server failed while reading
 * it (the change streams spec tests drive a stream's resume this way).
 */
let failGetMore: { errorCode: number, times: number, skip: number } | undefined

export function configureFailGetMore(mode: unknown, data: unknown): void {
  if (mode === 'off') {
    failGetMore = undefined
    return
  }
  const counts = parseMode(mode)
  if (!isNonArrayObject(data) || !Number.isInteger(Number((data as Document)['errorCode']))) throw badValue("failGetMoreAfterCursorCheckout: 'data.errorCode' must be an integer")
  failGetMore = counts.times > 0 ? { errorCode: Number((data as Document)['errorCode']), ...counts } : undefined
}

/** Whether the next getMore may fail (its cursor is then checked first). */
export function failGetMoreArmed(): boolean {
  return failGetMore !== undefined
}

/** Throws the fail point's error, counting it against its mode, when armed. */
export function failGetMoreAfterCheckout(): void {
  const state = failGetMore
  if (state === undefined) return
  if (state.skip > 0) {
    state.skip--
    return
  }
  state.times--
  if (state.times <= 0) failGetMore = undefined
  throw serverError(state.errorCode, CODE_NAMES[state.errorCode] ?? `Location${state.errorCode}`, "Failing getMore via 'failGetMoreAfterCursorCheckout' failpoint")
}

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
  63: 'StaleShardVersion',
  64: 'WriteConcernFailed',
  79: 'UnknownReplWriteConcern',
  89: 'NetworkTimeout',
  91: 'ShutdownInProgress',
  96: 'OperationFailed',
  100: 'UnsatisfiableWriteConcern',
  112: 'WriteConflict',
  133: 'FailedToSatisfyReadPreference',
  121: 'DocumentValidationFailure',
  134: 'ReadConcernMajorityNotAvailableYet',
  150: 'StaleEpoch',
  189: 'PrimarySteppedDown',
  216: 'ElectionInProgress',
  234: 'RetryChangeStream',
  251: 'NoSuchTransaction',
  262: 'ExceededTimeLimit',
  263: 'OperationNotSupportedInTransaction',
  280: 'ChangeStreamFatalError',
  9001: 'SocketException',
  10107: 'NotWritablePrimary',
  11000: 'DuplicateKey',
  11600: 'InterruptedAtShutdown',
  11601: 'Interrupted',
  11602: 'InterruptedDueToReplStateChange',
  13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary',
}
