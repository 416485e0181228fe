import type { Document } from '../../document.js'
import type { EmbeddedDb } from '../../embedded-db.js'
import { CloseConnection, commandFailure, failedReply, rememberAppName, withWriteConcernError } from '../command-fail-point.js'
import type { CursorRegistry } from '../cursor-registry.js'
import { OP_QUERY, type Request } from '../messages.js'
import { recordSession } from '../session-registry.js'
import { routeTransaction } from '../transactions.js'
import { commandNotFound, invalidNamespace, toErrorReply, WireError } from '../wire-error.js'
import { AGGREGATE_COMMANDS } from './aggregate.js'
import { COLLECTION_COMMANDS } from './collections.js'
import type { CommandHandler } from './command-context.js'
import { FAIL_POINT_COMMANDS } from './configure-fail-point.js'
import { DELETE_COMMANDS } from './delete.js'
import { DISTINCT_COMMANDS } from './distinct.js'
import { FIND_COMMANDS } from './find.js'
import { FIND_AND_MODIFY_COMMANDS } from './find-and-modify.js'
import { HANDSHAKE_COMMANDS } from './handshake.js'
import { INDEX_COMMANDS } from './indexes.js'
import { INSERT_COMMANDS } from './insert.js'
import { UPDATE_COMMANDS } from './update.js'

const COMMANDS: ReadonlyMap<string, CommandHandler> = new Map(Object.entries({
  ...HANDSHAKE_COMMANDS,
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

export interface ServerState {
  engine: EmbeddedDb
  cursors: CursorRegistry
  maxMessageBytes: number
}

/**
 * Runs one command and always answers: a failure becomes `{ ok: 0, errmsg, code, codeName }`. The
 * one exception is the `failCommand` fail point's `closeConnection`: then this throws, and the
 * connection, which drops itself on any throw, closes without a reply.
 */
export async function runCommand(request: Request, connectionId: number, state: ServerState): Promise<Document> {
  try {
    const { command } = request
    const name = Object.keys(command)[0]
    if (name === undefined) throw new WireError(2, 'BadValue', 'empty command document')
    if (request.header.opCode === OP_QUERY && !LEGACY_COMMANDS.has(name)) {
      throw new WireError(352, 'UnsupportedOpQueryCommand', `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade.`)
    }
    if (LEGACY_COMMANDS.has(name)) rememberAppName(state, connectionId, command)
    recordSession(state.engine, command)
    const failure = commandFailure(state, connectionId, name)
    if (failure?.closeConnection) throw new CloseConnection()
    if (failure?.errorCode !== undefined) return failedReply(failure, failure.errorCode)
    const transaction = await routeTransaction(state.engine, name, command)
    if (transaction !== undefined && 'reply' in transaction) return failure ? withWriteConcernError(transaction.reply, failure) : transaction.reply
    const handler = COMMANDS.get(name)
    if (!handler) throw commandNotFound(name)
    let db: EmbeddedDb
    try {
      db = transaction === undefined ? state.engine.db(request.db) : transaction.db(request.db)
    } catch (error) {
      if ((error as { code?: unknown }).code === 251) throw error
      throw invalidNamespace(`Invalid database name: '${request.db}'`)
    }
    const context = { db, dbName: request.db, engine: state.engine, cursors: state.cursors, connectionId, maxMessageBytes: state.maxMessageBytes }
    const reply = transaction === undefined ? await handler(command, context) : await inTransaction(() => handler(command, context), transaction.abort)
    return failure ? withWriteConcernError(reply, failure) : reply
  } catch (error) {
    if (error instanceof CloseConnection) throw error
    return toErrorReply(error)
  }
}
