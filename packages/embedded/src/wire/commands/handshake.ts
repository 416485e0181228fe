import { MAX_BSON_SIZE } from '../../bson/bson-codec.js'
import type { Document } from '../../document.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/** The MongoDB release whose wire protocol the server speaks (wire version 21 is MongoDB 7.0). */
const SERVER_VERSION = '7.0.0'
const MAX_WIRE_VERSION = 21
const MAX_WRITE_BATCH_SIZE = 100_000

/**
 * `hello` / `isMaster`: a writable standalone (no `setName`, no `msg: "isdbgrid"`). No
 * `compression` field, so clients never compress; no `topologyVersion`, so drivers poll
 * rather than stream their heartbeats; `logicalSessionTimeoutMinutes`, so drivers may send
 * `lsid` (accepted and ignored).
 */
function hello(legacy: boolean): CommandHandler {
  return (command: Document, context: CommandContext) => {
    const reply: Document = legacy ? { ismaster: true } : { isWritablePrimary: true }
    if (command['helloOk'] === true) reply['helloOk'] = true
    return {
      ...reply,
      maxBsonObjectSize: MAX_BSON_SIZE,
      maxMessageSizeBytes: context.maxMessageBytes,
      maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: context.connectionId,
      minWireVersion: 0,
      maxWireVersion: MAX_WIRE_VERSION,
      readOnly: false,
      ok: 1,
    }
  }
}

function buildInfo(): Document {
  return {
    version: SERVER_VERSION,
    gitVersion: 'fastify-mongo-crud-embedded',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_SIZE,
    storageEngines: ['embedded'],
    modules: [],
    ok: 1,
  }
}

/** Commands clients send while connecting or as diagnostics, with answers that keep them quiet. */
export const HANDSHAKE_COMMANDS: Record<string, CommandHandler> = {
  hello: hello(false),
  isMaster: hello(true),
  ismaster: hello(true),
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
  endSessions: () => ({ ok: 1 }),
  getParameter: (command) => (command['featureCompatibilityVersion'] ? { featureCompatibilityVersion: { version: '7.0' }, ok: 1 } : { ok: 1 }),
  getLog: () => ({ totalLinesWritten: 0, log: [], ok: 1 }),
  getCmdLineOpts: () => ({ argv: ['fastify-mongo-crud', 'db'], parsed: {}, ok: 1 }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  whatsmyuri: (_command, context) => ({ you: `connection ${context.connectionId}`, ok: 1 }),
  hostInfo: () => ({ system: { currentTime: new Date(), hostname: 'localhost' }, os: {}, extra: {}, ok: 1 }),
}
