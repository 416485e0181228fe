import type { Document } from './document.js'
import { badValueError, typeMismatchError } from './errors.js'

/**
 * MongoDB's test fail points, the ones the engine implements:
 * - `maxTimeAlwaysTimeOut` makes every operation that carries a `maxTimeMS` fail with
 *   MaxTimeMSExpired (code 50) at its first check, however fast it is, so a time-out can be tested
 *   without a slow query or a clock (modes `alwaysOn` and `off`);
 * - `failCommand` makes the wire server fail the commands named in `data.failCommands` (an error
 *   code, a closed connection, or a write concern error added to the reply), in every mode:
 *   `alwaysOn`, `off`, `{ times: n }` (the next n matching commands), `{ skip: n }` (all but the
 *   next n). It acts on the wire server's command dispatch only (wire/command-fail-point.ts), never
 *   on `configureFailPoint` or the handshake; in-process calls are not commands and never fail.
 *
 * Like a `mongod`'s, fail points are process-wide: they apply to every engine of the process. They
 * are set with the `configureFailPoint` command (over the wire, or `EmbeddedDb.configureFailPoint`).
 */
export type FailPointName = 'maxTimeAlwaysTimeOut' | 'failCommand'
export type FailPointMode = 'alwaysOn' | 'off' | { times: number } | { skip: number }

/** `data` of the `failCommand` fail point, as mongod takes it. */
export interface FailCommandData {
  failCommands: string[]
  errorCode?: number
  errmsg?: string
  closeConnection?: boolean
  writeConcernError?: Document
  errorLabels?: string[]
  /** Only commands of connections whose handshake gave this application name fail. */
  appName?: string
}

const NAMES: ReadonlySet<string> = new Set<FailPointName>(['maxTimeAlwaysTimeOut', 'failCommand'])
const DATA_FIELDS = new Set(['failCommands', 'errorCode', 'errmsg', 'closeConnection', 'writeConcernError', 'errorLabels', 'appName'])
const active = new Set<FailPointName>()

interface FailCommandState {
  data: FailCommandData
  /** Matching commands still to fail (Infinity: `alwaysOn`, `{ skip }`). */
  times: number
  /** Matching commands still to let through first. */
  skip: number
}
let failCommand: FailCommandState | undefined

/**
 * `{ configureFailPoint: name, mode, data }`; unknown names, modes and `data` fields are BadValue,
 * and so are the parts of `failCommand` the engine does not implement (`blockConnection`).
 */
export function configureFailPoint(name: unknown, mode: unknown, data?: unknown): void {
  if (typeof name !== 'string' || !NAMES.has(name)) throw badValueError(`Unknown fail point: ${String(name)}`)
  if (name === 'failCommand') {
    configureFailCommand(mode, data)
    return
  }
  if (mode === 'alwaysOn') active.add(name as FailPointName)
  else if (mode === 'off') active.delete(name as FailPointName)
  else throw badValueError(`Fail point mode must be 'alwaysOn' or 'off', got ${JSON.stringify(mode)}`)
}

export function failPointOn(name: FailPointName): boolean {
  return active.has(name)
}

/**
 * What the `failCommand` fail point does to this command, if anything; counts it against the
 * mode's `times` or `skip`. `appName` is the one the command's connection gave in its handshake.
 */
export function failCommandFor(command: string, appName: string | undefined): FailCommandData | undefined {
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

function configureFailCommand(mode: unknown, data: unknown): void {
  if (mode === 'off') {
    failCommand = undefined
    return
  }
  const counts = parseMode(mode)
  const checked = parseData(data)
  failCommand = counts.times > 0 ? { data: checked, ...counts } : undefined
}

function parseMode(mode: unknown): { times: number, skip: number } {
  if (mode === 'alwaysOn') return { times: Number.POSITIVE_INFINITY, skip: 0 }
  if (typeof mode === 'object' && mode !== null && !Array.isArray(mode) && Object.keys(mode).length === 1) {
    const [key, value] = Object.entries(mode)[0]!
    const count = Number(value)
    if ((key === 'times' || key === 'skip') && Number.isInteger(count) && count >= 0) {
      return key === 'times' ? { times: count, skip: 0 } : { times: Number.POSITIVE_INFINITY, skip: count }
    }
  }
  throw badValueError(`Fail point mode must be 'alwaysOn', 'off', { times: n } or { skip: n }, got ${JSON.stringify(mode)}`)
}

function parseData(data: unknown): FailCommandData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw typeMismatchError("failCommand: 'data' must be an object")
  const spec = data as Document
  for (const key of Object.keys(spec)) {
    if (key === 'blockConnection' || key === 'blockTimeMS') throw badValueError(`failCommand: '${key}' is not supported by the embedded engine`)
    if (!DATA_FIELDS.has(key)) throw badValueError(`failCommand: data field '${key}' is not supported by the embedded engine`)
  }
  const { failCommands, errorCode, errmsg, closeConnection, writeConcernError, errorLabels, appName } = spec
  if (!Array.isArray(failCommands) || failCommands.some((c) => typeof c !== 'string')) throw badValueError("failCommand: 'data.failCommands' must be an array of command names")
  const checked: FailCommandData = { failCommands: failCommands as string[] }
  if (errorCode !== undefined) {
    if (!Number.isInteger(Number(errorCode))) throw typeMismatchError("failCommand: 'data.errorCode' must be an integer")
    checked.errorCode = Number(errorCode)
  }
  if (errmsg !== undefined) checked.errmsg = String(errmsg)
  if (closeConnection !== undefined) checked.closeConnection = closeConnection === true
  if (writeConcernError !== undefined) {
    if (typeof writeConcernError !== 'object' || writeConcernError === null) throw typeMismatchError("failCommand: 'data.writeConcernError' must be an object")
    checked.writeConcernError = writeConcernError as Document
  }
  if (errorLabels !== undefined) {
    if (!Array.isArray(errorLabels) || errorLabels.some((l) => typeof l !== 'string')) throw typeMismatchError("failCommand: 'data.errorLabels' must be an array of strings")
    checked.errorLabels = errorLabels as string[]
  }
  if (appName !== undefined) checked.appName = String(appName)
  return checked
}
