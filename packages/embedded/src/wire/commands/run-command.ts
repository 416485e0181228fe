import { Long } from 'mongodb'
import type { Document } from '../../document.js'
import type { EmbeddedDb } from '../../embedded-db.js'
import { authorize } from '../auth/authorize.js'
import type { CursorOwners } from '../auth/cursor-owners.js'
import { withClusterTime } from '../cluster-time-reply.js'
import { CloseConnection, commandFailure, failedReply, rememberAppName, withWriteConcernError } from '../command-fail-point.js'
import type { CursorRegistry } from '../cursor-registry.js'
import { withErrorLabels } from '../error-labels.js'
import { OP_QUERY, type Request } from '../messages.js'
import { runRetryableWrite } from '../retryable-writes.js'
import type { Peer, RunningOp } from '../server-activity.js'
import { recordSession } from '../session-registry.js'
import { routeTransaction, type TransactionRoute } from '../transactions.js'
import { commandNotFound, invalidNamespace, toErrorReply, WireError } from '../wire-error.js'
import { withWriteConcernCheck } from '../write-concern.js'
import { AGGREGATE_COMMANDS } from './aggregate.js'
import { AUTHENTICATION_COMMANDS } from './authentication.js'
import { COLLECTION_COMMANDS } from './collections.js'
import type { CommandHandler, ServerInfo } from './command-context.js'
import { FAIL_POINT_COMMANDS } from './configure-fail-point.js'
import { CURRENT_OP_COMMANDS } from './current-op.js'
import { DELETE_COMMANDS } from './delete.js'
import { DISTINCT_COMMANDS } from './distinct.js'
import { EXPLAIN_COMMANDS } from './explain.js'
import { FIND_COMMANDS } from './find.js'
import { FIND_AND_MODIFY_COMMANDS } from './find-and-modify.js'
import { HANDSHAKE_COMMANDS } from './handshake.js'
import { INDEX_COMMANDS } from './indexes.js'
import { INSERT_COMMANDS } from './insert.js'
import { REPLICATION_COMMANDS } from './replication.js'
import { SERVER_STATUS_COMMANDS } from './server-status.js'
import { STATISTICS_COMMANDS } from './statistics.js'
import { UPDATE_COMMANDS } from './update.js'
import { USER_COMMANDS } from './users.js'

export const COMMANDS: ReadonlyMap<string, CommandHandler> = new Map(Object.entries({
  ...HANDSHAKE_COMMANDS,
  ...AUTHENTICATION_COMMANDS,
  ...FIND_COMMANDS,
  ...DISTINCT_COMMANDS,
  ...INSERT_COMMANDS,
  ...UPDATE_COMMANDS,
  ...DELETE_COMMANDS,
  ...FIND_AND_MODIFY_COMMANDS,
  ...AGGREGATE_COMMANDS,
  ...INDEX_COMMANDS,
  ...COLLECTION_COMMANDS,
  ...FAIL_POINT_COMMANDS,
  ...USER_COMMANDS,
  ...STATISTICS_COMMANDS,
  ...SERVER_STATUS_COMMANDS,
  ...EXPLAIN_COMMANDS,
  ...CURRENT_OP_COMMANDS,
  ...REPLICATION_COMMANDS,
}))

/** Since MongoDB 5.1 OP_QUERY carries only the handshake; so it is here. */
const LEGACY_COMMANDS = new Set(['hello', 'isMaster', 'ismaster'])

/** A command of a transaction: one that fails (or reports write errors) aborts it, as on the server. */
async function inTransaction(run: () => Promise<Document> | Document, abort: () => Promise<void>): Promise<Document> {
  try {
    const reply = await run()
    if (Array.isArray(reply['writeErrors']) && reply['writeErrors'].length > 0) await abort()
    return reply
  } catch (error) {
    await abort()
    throw error
  }
}

export interface ServerState extends ServerInfo {
  engine: EmbeddedDb
  cursors: CursorRegistry
  maxMessageBytes: number
  /** With `--auth`: which user opened each cursor. */
  cursorOwners: CursorOwners
}

/** Commands of the login, which read no database of the engine. */
const LOGIN_COMMANDS = new Set(Object.keys(AUTHENTICATION_COMMANDS))

/** What a command of a transaction runs against. */
type InTransaction = Extract<TransactionRoute, { abort(): Promise<void> }>

/** Commands `routeTransaction` answers itself. */
const TRANSACTION_COMMANDS = new Set(['commitTransaction', 'abortTransaction'])

/**
 * Runs one command and always answers: a failure becomes `{ ok: 0, errmsg, code, codeName }`. The
 * one exception is the `failCommand` fail point's `closeConnection`: then this throws, and the
 * connection, which drops itself on any throw, closes without a reply. With `--auth`, the command is
 * refused (Unauthorized, 13) before anything of it runs unless the connection's user may run it
 * (auth/authorize.ts). While it runs, `currentOp` lists it and `killOp` can interrupt it.
 */
export async function runCommand(request: Request, peer: Peer, state: ServerState): Promise<Document> {
  const reply = await answer(request, peer, state)
  return state.replicaSet === undefined ? reply : withClusterTime(state.replicaSet.withTopologyVersion(reply), state.engine)
}

async function answer(request: Request, peer: Peer, state: ServerState): Promise<Document> {
  const connectionId = peer.id
  try {
    const { command } = request
    const name = Object.keys(command)[0]
    if (name === undefined) throw new WireError(2, 'BadValue', 'empty command document')
    if (request.header.opCode === OP_QUERY && !LEGACY_COMMANDS.has(name)) {
      throw new WireError(352, 'UnsupportedOpQueryCommand', `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade.`)
    }
    // As mongod: an unknown command is CommandNotFound (59) whoever sends it, before any check of who.
    if (!COMMANDS.has(name) && !TRANSACTION_COMMANDS.has(name)) throw commandNotFound(name)
    authorize(state.security, peer, name, command, request.db)
    if (state.security.enabled) state.cursorOwners.check(name, command, peer)
    if (LEGACY_COMMANDS.has(name)) rememberAppName(state, connectionId, command)
    const op = state.activity.begin(peer, name, command, request.db)
    try {
      const reply = await runAuthorized(request, name, peer, state, op)
      if (state.security.enabled) state.cursorOwners.record(name, command, reply, peer)
      return reply
    } finally {
      state.activity.end(op)
    }
  } catch (error) {
    if (error instanceof CloseConnection) throw error
    return toErrorReply(error)
  }
}

async function runAuthorized(request: Request, name: string, peer: Peer, state: ServerState, op: RunningOp): Promise<Document> {
  const { command } = request
  recordSession(state.engine, command)
  const failure = commandFailure(state, peer.id, name)
  if (failure?.blockTimeMS !== undefined) await blocked(failure.blockTimeMS, op)
  if (failure?.closeConnection) throw new CloseConnection()
  let reply: Document
  try {
    reply = failure?.errorCode !== undefined ? failedReply(failure, failure.errorCode) : await runRouted(request, name, peer, state, op)
  } catch (error) {
    reply = toErrorReply(error)
  }
  if (failure !== undefined) reply = withWriteConcernError(reply, failure)
  if (state.replicaSet !== undefined) reply = withWriteConcernCheck(reply, command)
  // A fail point's own labels replace those the server would add, as mongod's `errorLabels`.
  return failure?.errorLabels === undefined ? withErrorLabels(reply, name, command) : reply
}

/**
 * The `blockConnection` of a fail point: the command waits `ms` before anything else of it (a
 * killOp ends the wait with Interrupted); the wait keeps no process up once the server is gone.
 */
async function blocked(ms: number, op: RunningOp): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
    timer.unref()
  })
  try {
    await Promise.race([waited, op.interrupted])
  } finally {
    clearTimeout(timer)
  }
}

/** Runs the command in its transaction, as a retryable write, or alone (transactions.ts). */
async function runRouted(request: Request, name: string, peer: Peer, state: ServerState, op: RunningOp): Promise<Document> {
  const route = await routeTransaction(state.engine, name, request.command, state.replicaSet !== undefined)
  if (route !== undefined && 'reply' in route) return route.reply
  if (route !== undefined && 'retryableWrite' in route) {
    const { session, txnNumber } = route.retryableWrite
    return runRetryableWrite(state.engine, name, session, txnNumber, () => runHandler(request, name, peer, state, op, undefined))
  }
  return runHandler(request, name, peer, state, op, route)
}

async function runHandler(request: Request, name: string, peer: Peer, state: ServerState, op: RunningOp, transaction: InTransaction | undefined): Promise<Document> {
  const { command } = request
  const handler = COMMANDS.get(name)
  if (!handler) throw commandNotFound(name)
  let db: EmbeddedDb
  try {
    db = transaction === undefined ? state.engine.db(request.db) : transaction.db(request.db)
  } catch (error) {
    if ((error as { code?: unknown }).code === 251) throw error
    // A login names the user's database only (`$external` for the mechanisms of outside users): no database of the engine.
    if (!LOGIN_COMMANDS.has(name)) throw invalidNamespace(`Invalid database name: '${request.db}'`)
    db = state.engine
  }
  const context = { db, dbName: request.db, engine: state.engine, cursors: state.cursors, connectionId: peer.id, maxMessageBytes: state.maxMessageBytes, peer, server: state }
  const running = transaction === undefined ? Promise.resolve(handler(command, context)) : inTransaction(() => handler(command, context), transaction.abort)
  return Promise.race([running, op.interrupted]).catch((error: unknown) => {
    // Killed (killOp): the client has its answer; a cursor the command opens after all is closed, unread.
    if (error === op.killedWith) void running.then((late) => closeCursorOf(late, state), () => undefined)
    throw error
  })
}

/** Closes the cursor a reply opened, if any. */
async function closeCursorOf(reply: Document, state: ServerState): Promise<void> {
  const cursor = reply['cursor'] as Document | undefined
  const id = cursor?.['id']
  if (Long.isLong(id) && !id.isZero() && typeof cursor?.['ns'] === 'string') await state.cursors.kill(cursor['ns'], [id])
}
