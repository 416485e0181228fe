import { Binary } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedDb } from '../embedded-db.js'
import { noSuchTransactionError } from '../errors.js'
import type { EmbeddedSession } from '../transaction/embedded-session.js'
import { badValue, illegalOperation, WireError } from './wire-error.js'

/** How many sessions' transaction state one engine keeps; the least recently used is dropped (and aborted) beyond it. */
const MAX_SESSIONS = 10_000

/** A client session's transaction state: its latest transaction number and the engine session running it. */
interface WireSession {
  txnNumber: number
  session: EmbeddedSession<EmbeddedDb>
}

const registries = new WeakMap<EmbeddedDb, Map<string, WireSession>>()

/** What a command of a transaction runs against, or the answer to `commitTransaction` / `abortTransaction`. */
export type TransactionRoute = { reply: Document } | { db(name: string): EmbeddedDb, abort(): Promise<void> }

/**
 * The driver's transactions on the wire: a command with `autocommit: false` and a `txnNumber`
 * runs in its session's (`lsid`) transaction, which `startTransaction: true` starts; the command
 * `commitTransaction` applies it, `abortTransaction` drops it. Undefined for a command outside any.
 *
 * The server still says it is a standalone in `hello`: the Node driver sends transactions to one
 * (a standalone mongod refuses them); retryable writes (a `txnNumber` without `autocommit`), which
 * it sends only to replica sets, stay refused, as a standalone refuses them (IllegalOperation, 20).
 */
export async function routeTransaction(engine: EmbeddedDb, name: string, command: Document): Promise<TransactionRoute | undefined> {
  if (name === 'endSessions') await endSessions(engine, command)
  const isTransactionCommand = name === 'commitTransaction' || name === 'abortTransaction'
  if (command['txnNumber'] === undefined && command['startTransaction'] === undefined && command['autocommit'] === undefined && !isTransactionCommand) return undefined
  if (command['autocommit'] !== false) throw illegalOperation('Transaction numbers are only allowed on a replica set member or mongos')
  const key = sessionKey(command)
  const txnNumber = Number(command['txnNumber'])
  if (key === undefined || !Number.isSafeInteger(txnNumber)) throw badValue('a transaction needs an lsid and a txnNumber')
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
  if (found !== undefined && txnNumber <= found.txnNumber) {
    throw new WireError(225, 'TransactionTooOld', `Cannot start transaction ${txnNumber} on session because a newer transaction ${found.txnNumber} has already started.`)
  }
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
  for (const lsid of ids) {
    const key = sessionKey({ lsid })
    if (key !== undefined) forget(sessions, key)
  }
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
