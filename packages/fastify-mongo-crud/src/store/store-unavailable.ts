import { StoreError } from '../errors.js'

/**
 * The driver's errors that say the database could not be reached, by class name (and the names of
 * the classes it derives from): a copy of the driver of another major, or another copy of the same
 * one, throws classes `instanceof` does not know. Bad input never takes one of these shapes: the
 * driver's argument errors are `MongoInvalidArgumentError`, the server's answers `MongoServerError`.
 */
const UNREACHABLE_CLASSES = new Set([
  // A connection lost or timed out; `MongoPoolClearedError` and `MongoNetworkTimeoutError` derive from it.
  'MongoNetworkError',
  // No server answered within `serverSelectionTimeoutMS`.
  'MongoServerSelectionError',
  // A client (or the embedded engine) used once closed, or before it connected.
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
  'MongoServerClosedError',
  // A connection asked of a pool the driver closed.
  'MongoPoolClosedError',
])

/**
 * The server's codes for a server that cannot serve right now: shutting down, stepping down or no
 * longer primary (a replica set electing another), or a host it could not reach (a mongos). Each is
 * answered the same way however the request was written, and the request succeeds once it is over.
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
])

/**
 * Node's socket errors, which the driver lets out unwrapped when a connection fails under a write
 * to it (mongodb 7.9: `Error: write ECONNRESET`). A system error (it has a `syscall`) of one of
 * these codes says the connection or the host failed, never what was asked.
 */
const SOCKET_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * Errors that prove nothing of the operation reached the database: a client closed or never
 * connected refuses before sending, and the driver labels a retry's error `NoWritesPerformed`.
 */
const NOTHING_SENT_CLASSES = new Set(['MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClosedError'])

/**
 * The database could not be reached (FMC_ERR_STORE_UNAVAILABLE): answered 503 with `Retry-After`,
 * as the same request succeeds once it is back (the driver reconnects by itself).
 */
export class StoreUnavailable extends StoreError {
  /**
   * A write that may have reached the database before the connection was lost: it may or may not be
   * stored, and the client is told so (a retry with `If-Match` or `If-None-Match: *` is safe).
   */
  readonly writeOutcomeUnknown: boolean

  constructor(writeOutcomeUnknown: boolean, options: { cause?: unknown }) {
    super('FMC_ERR_STORE_UNAVAILABLE', 'The database cannot be reached', options)
    this.writeOutcomeUnknown = writeOutcomeUnknown
  }
}

/**
 * `error` as a StoreUnavailable when it says the database could not be reached; undefined otherwise.
 * `operation` is what failed: a read never changes anything, a write's outcome is unknown unless the
 * error proves it was never sent (a server selection error does not: the driver's retry of a write
 * whose connection was lost selects a server again, and fails the same way).
 */
export function asUnavailable(error: unknown, operation: 'read' | 'write'): StoreUnavailable | undefined {
  if (typeof error !== 'object' || error === null || error instanceof StoreError) return undefined
  const classes = classNames(error)
  const code = (error as { code?: unknown }).code
  const unreachable =
    classes.some((name) => UNREACHABLE_CLASSES.has(name)) ||
    (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) ||
    (typeof code === 'string' && SOCKET_ERROR_CODES.has(code) && 'syscall' in error)
  if (!unreachable) return undefined
  const nothingSent = classes.some((name) => NOTHING_SENT_CLASSES.has(name)) || hasLabel(error, 'NoWritesPerformed')
  return new StoreUnavailable(operation === 'write' && !nothingSent, { cause: error })
}

/** The names of the classes `error` is an instance of, its own first. */
function classNames(error: object): string[] {
  const names: string[] = []
  for (let proto = Object.getPrototypeOf(error); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    if (typeof name === 'string') names.push(name)
  }
  // The driver names a few classes otherwise than their constructors (`PoolClearedError` is `MongoPoolClearedError`).
  const own = (error as { name?: unknown }).name
  if (typeof own === 'string') names.unshift(own)
  return names
}

/** Whether the driver labelled `error` with `label` (its `hasErrorLabel`). */
export function hasLabel(error: object, label: string): boolean {
  const has = (error as { hasErrorLabel?: unknown }).hasErrorLabel
  return typeof has === 'function' && (has as (label: string) => boolean).call(error, label) === true
}
