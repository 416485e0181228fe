import { MAX_BSON_SIZE } from '../../bson/bson-codec.js'
import { type Document, isNonArrayObject } from '../../document.js'
import { rolesOf } from '../auth/authorize.js'
import { privilegesOf } from '../auth/roles.js'
import { streamReplies } from '../messages.js'
import { speculativeAuthenticate, supportedMechanisms } from './authentication.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/** The MongoDB release whose wire protocol the server speaks (wire version 21 is MongoDB 7.0). */
export const SERVER_VERSION = '7.0.0'
const MAX_WIRE_VERSION = 21
const MAX_WRITE_BATCH_SIZE = 100_000

/**
 * `hello` / `isMaster`: a writable standalone (no `setName`, no `msg: "isdbgrid"`), or under
 * `--replSet` the primary of a single-node replica set (replica-set.ts). No `compression` field,
 * so clients never compress; `logicalSessionTimeoutMinutes`, so drivers send `lsid`. A standalone
 * has no `topologyVersion`, so drivers poll it; a replica set has one, so the driver's monitor
 * streams: its `hello` (with `topologyVersion` and `maxAwaitTimeMS`) is answered once that time has
 * passed, and again every time after it while the connection lasts (`exhaustAllowed`).
 */
function hello(legacy: boolean): CommandHandler {
  return async (command: Document, context: CommandContext) => {
    const replicaSet = context.server.replicaSet
    const awaitable = replicaSet !== undefined && command['topologyVersion'] !== undefined && Number(command['maxAwaitTimeMS']) > 0
    if (awaitable) await replicaSet.awaitTopologyChange(command['topologyVersion'], Number(command['maxAwaitTimeMS']))
    const reply: Document = legacy ? { ismaster: true } : { isWritablePrimary: true }
    if (command['helloOk'] === true) reply['helloOk'] = true
    if (isNonArrayObject(command['client'])) context.peer.clientMetadata ??= command['client']
    // Authentication rides on the handshake: which mechanisms the user has, and the first SCRAM step.
    const mechanisms = supportedMechanisms(command, context)
    if (mechanisms !== undefined) reply['saslSupportedMechs'] = mechanisms
    const speculative = speculativeAuthenticate(command, context)
    if (speculative !== undefined) reply['speculativeAuthenticate'] = speculative
    const answer: Document = {
      ...reply,
      ...replicaSet?.helloFields(context.engine.clusterTime()),
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
    if (awaitable && !replicaSet.stopped) {
      // The next answers of the stream wait on this server's own version, as mongod re-runs the request with it.
      command['topologyVersion'] = replicaSet.topologyVersion
      streamReplies(answer)
    }
    return answer
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

/** Who the connection is logged in as, and with `showPrivileges` what it may do (Compass reads them to list what to show). */
function connectionStatus(command: Document, context: CommandContext): Document {
  const user = context.peer.auth.user
  const roles = user === undefined ? [] : rolesOf(context.server.security, context.peer)
  const authInfo: Document = { authenticatedUsers: user === undefined ? [] : [user], authenticatedUserRoles: roles.map(({ role, db }) => ({ role, db })) }
  if (command['showPrivileges'] === true) authInfo['authenticatedUserPrivileges'] = privilegesOf(roles)
  return { authInfo, ok: 1 }
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
  connectionStatus,
  whatsmyuri: (_command, context) => ({ you: `connection ${context.connectionId}`, ok: 1 }),
  hostInfo: () => ({ system: { currentTime: new Date(), hostname: 'localhost' }, os: {}, extra: {}, ok: 1 }),
}
