import { Binary } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedDb } from '../embedded-db.js'
import { noSuchTransactionError, operationNotSupportedInTransactionError, transactionTooOldError } from '../errors.js'
import type { EmbeddedSession } from '../transaction/embedded-session.js'
import { forgetRetryableWrites } from './retryable-writes.js'
import { badValue, illegalOperation } from './wire-error.js'

/** The commands a transaction may hold, as mongod's list: reads, writes, cursors, and creating collections and indexes. */
const IN_TRANSACTION = new Set(['find', 'getMore', 'killCursors', 'aggregate', 'distinct', 'insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'create', 'createIndexes', 'commitTransaction', 'abortTransaction'])

/** How many sessions' transaction state one engine keeps; the least recently used is dropped (and aborted) beyond it. */
const MAX_SESSIONS = 10_000

/** A client session's transaction state: its latest transaction number and the engine session running it. */
interface WireSession {
  txnNumber: number
  session: EmbeddedSession<EmbeddedDb>
}

const registries = new WeakMap<EmbeddedDb, Map<string, WireSession>>()

/**
 * What a command of a transaction runs against, the answer to `commitTransaction` /
 * `abortTransaction`, or, for a retryable write, its session and number (retryable-writes.ts).
 */
export type TransactionRoute =
  | { reply: Document }
  | { db(name: string): EmbeddedDb, abort(): Promise<void> }
  | { retryableWrite: { session: string, txnNumber: number } }

/**
 * The driver's transactions on the wire: a command with `autocommit: false` and a `txnNumber`
 * runs in its session's (`lsid`) transaction, which `startTransaction: true` starts; the command
 * `commitTransaction` applies it, `abortTransaction` drops it. Undefined for a command outside any.
 *
 * A `txnNumber` without `autocommit` is a retryable write, which drivers send to a replica set only:
 * under `--replSet` it is routed as one; a standalone refuses it, as mongod does (IllegalOperation,
 * 20). Transactions are served either way (the Node driver sends them to a standalone too, which
 * a standalone mongod refuses).
 */
export async function routeTransaction(engine: EmbeddedDb, name: string, command: Document, replicaSet: boolean): Promise<TransactionRoute | undefined> {
  if (name === 'endSessions') await endSessions(engine, command)
  const isTransactionCommand = name === 'commitTransaction' || name === 'abortTransaction'
  if (command['txnNumber'] === undefined && command['startTransaction'] === undefined && command['autocommit'] === undefined && !isTransactionCommand) return undefined
  const key = sessionKey(command)
  const txnNumber = Number(command['txnNumber'])
  if (command['autocommit'] === undefined && command['startTransaction'] === undefined && !isTransactionCommand && replicaSet) {
    if (key === undefined || !Number.isSafeInteger(txnNumber)) throw badValue('a retryable write needs an lsid and a txnNumber')
    return { retryableWrite: { session: key, txnNumber } }
  }
  if (command['autocommit'] !== false) throw illegalOperation('Transaction numbers are only allowed on a replica set member or mongos')
  if (key === undefined || !Number.isSafeInteger(txnNumber)) throw badValue('a transaction needs an lsid and a txnNumber')
  if (!IN_TRANSACTION.has(name)) throw operationNotSupportedInTransactionError(`'${name}'`)
  const sessions = registryOf(engine)
  if (command['startTransaction'] === true) return start(engine, sessions, key, txnNumber)
  const found = sessions.get(key)
  if (found === undefined || found.txnNumber !== txnNumber) throw noSuchTransactionError(txnNumber)
  if (name === 'commitTransaction') {
    await commit(found)
    return { reply: { ok: 1 } }
  }
  if (name === 'abortTransaction') {
    if (!found.session.inTransaction()) throw noSuchTransactionError(txnNumber)
    await found.session.abortTransaction()
    return { reply: { ok: 1 } }
  }
  return routeTo(found)
}

function start(engine: EmbeddedDb, sessions: Map<string, WireSession>, key: string, txnNumber: number): TransactionRoute {
  let found = sessions.get(key)
  if (found !== undefined && txnNumber <= found.txnNumber) throw transactionTooOldError(txnNumber, found.txnNumber)
  // A newer transaction of the session ends its older one, as on the server.
  if (found?.session.inTransaction()) void found.session.abortTransaction()
  found ??= { txnNumber, session: engine.client.startSession() }
  found.txnNumber = txnNumber
  sessions.delete(key)
  sessions.set(key, found)
  if (sessions.size > MAX_SESSIONS) forget(sessions, sessions.keys().next().value!)
  found.session.startTransaction()
  return routeTo(found)
}

/** A commit of a committed transaction answers ok again (the driver retries a commit whose answer it lost). */
async function commit(found: WireSession): Promise<void> {
  const transaction = found.session.transaction
  if (transaction === undefined) {
    if (committed.has(found)) return
    throw noSuchTransactionError(found.txnNumber)
  }
  await found.session.commitTransaction()
  committed.add(found)
}

/** Sessions whose latest transaction committed. */
const committed = new WeakSet<WireSession>()

function routeTo(found: WireSession): TransactionRoute {
  const transaction = found.session.transaction
  if (transaction === undefined) throw noSuchTransactionError(found.txnNumber)
  committed.delete(found)
  return {
    db: (name) => transaction.db(name),
    // A command that fails aborts its transaction, as on the server: the client then starts it again.
    abort: () => (found.session.transaction === transaction ? found.session.abortTransaction() : Promise.resolve()),
  }
}

/** `endSessions`: the sessions' open transactions are aborted and their state dropped. */
async function endSessions(engine: EmbeddedDb, command: Document): Promise<void> {
  const ids = command['endSessions']
  if (!Array.isArray(ids)) return
  const sessions = registryOf(engine)
  const keys = ids.map((lsid) => sessionKey({ lsid })).filter((key) => key !== undefined)
  for (const key of keys) forget(sessions, key)
  forgetRetryableWrites(engine, keys)
}

/** `killAllSessions`: every session's open transaction is aborted, and their state dropped. */
export async function killAllTransactions(engine: EmbeddedDb): Promise<void> {
  const sessions = registryOf(engine)
  const open = [...sessions.values()].filter((found) => found.session.inTransaction())
  sessions.clear()
  await Promise.all(open.map((found) => found.session.abortTransaction()))
}

function forget(sessions: Map<string, WireSession>, key: string): void {
  const found = sessions.get(key)
  sessions.delete(key)
  if (found?.session.inTransaction()) void found.session.abortTransaction()
}

function registryOf(engine: EmbeddedDb): Map<string, WireSession> {
  let sessions = registries.get(engine)
  if (!sessions) {
    sessions = new Map()
    registries.set(engine, sessions)
  }
  return sessions
}

function sessionKey(command: Document): string | undefined {
  const id = (command['lsid'] as Document | undefined)?.['id']
  return id instanceof Binary ? id.toString('hex') : undefined
}
