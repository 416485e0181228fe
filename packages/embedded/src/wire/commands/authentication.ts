import { Binary } from 'mongodb'
import { type Document, isNonArrayObject } from '../../document.js'
import { SCRAM_SHA_256, ScramConversation } from '../auth/scram-sha-256.js'
import { mechanismUnavailable, typeMismatch, WireError } from '../wire-error.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/**
 * `saslStart`: the client's first SCRAM-SHA-256 message, on the database the user belongs to (the
 * driver's `authSource`). The only mechanism: SCRAM-SHA-1 would need the MD5 digest mongod keeps
 * for it, and MongoDB's others (x.509, LDAP, Kerberos, OIDC) need what the engine has not.
 */
const saslStart: CommandHandler = (command, context) => startConversation(command, context.dbName, context)

function startConversation(command: Document, db: string, context: CommandContext): Document {
  const mechanism = command['mechanism']
  if (mechanism !== SCRAM_SHA_256) throw mechanismUnavailable(`Received authentication for mechanism ${String(mechanism)} which is not enabled (the server supports ${SCRAM_SHA_256} only)`)
  const { auth } = context.peer
  try {
    const users = context.server.security.users
    const scram = ScramConversation.start(payloadOf(command), (user) => users.get(db, user)?.credentials[SCRAM_SHA_256])
    const options = command['options']
    const id = auth.begin(db, scram, isNonArrayObject(options) && options['skipEmptyExchange'] === true)
    return { conversationId: id, done: false, payload: new Binary(scram.serverFirst), ok: 1 }
  } catch (error) {
    auth.abandon()
    throw error
  }
}

/** `saslContinue`: the client's proof, then (unless it skips it) an empty last exchange. */
const saslContinue: CommandHandler = (command, context) => {
  const { auth } = context.peer
  const id = Number(command['conversationId'])
  const conversation = auth.conversation(id)
  if (conversation === undefined) throw new WireError(17, 'ProtocolError', 'No SASL session state found')
  try {
    const step = conversation.scram.continue(payloadOf(command), conversation.skipEmptyExchange)
    if (step.done) auth.succeed({ user: conversation.scram.user, db: conversation.db })
    return { conversationId: id, done: step.done, payload: new Binary(step.payload), ok: 1 }
  } catch (error) {
    auth.abandon()
    throw error
  }
}

/** `authenticate`, the command of MONGODB-X509 (and of the old MONGODB-CR): a mechanism the server does not take. */
const authenticate: CommandHandler = (command) => {
  throw mechanismUnavailable(`Received authentication for mechanism ${String(command['mechanism'])} which is not enabled (the server supports ${SCRAM_SHA_256} only)`)
}

const logout: CommandHandler = (_command, context) => {
  context.peer.auth.logout()
  return { ok: 1 }
}

/**
 * The `speculativeAuthenticate` of a `hello` (a `saslStart` the driver sends with its handshake,
 * saving a round trip): its answer, or undefined when it fails. As on mongod, a failed speculative
 * start is not an error of the handshake: the field is left out, and the driver then authenticates
 * the usual way, which fails with AuthenticationFailed.
 */
export function speculativeAuthenticate(command: Document, context: CommandContext): Document | undefined {
  const start = command['speculativeAuthenticate']
  if (!isNonArrayObject(start) || start['saslStart'] === undefined || typeof start['db'] !== 'string') return undefined
  try {
    const { ok: _ok, ...reply } = startConversation(start, start['db'], context)
    return reply
  } catch {
    return undefined
  }
}

/**
 * The mechanisms of the user a `hello`'s `saslSupportedMechs` names (`<db>.<user>`): SCRAM-SHA-256
 * when it exists, nothing otherwise (the driver then tries its default, SCRAM-SHA-256, and fails).
 */
export function supportedMechanisms(command: Document, context: CommandContext): string[] | undefined {
  const name = command['saslSupportedMechs']
  if (typeof name !== 'string') return undefined
  const cut = name.indexOf('.')
  if (cut <= 0) return undefined
  return context.server.security.users.get(name.slice(0, cut), name.slice(cut + 1)) === undefined ? undefined : [SCRAM_SHA_256]
}

/** The bytes of a SASL payload (BSON binary). */
function payloadOf(command: Document): Uint8Array {
  const payload = command['payload']
  if (payload instanceof Binary) return payload.buffer.subarray(0, payload.position)
  if (payload instanceof Uint8Array) return payload
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8')
  throw typeMismatch("'payload' must be binary data")
}

export const AUTHENTICATION_COMMANDS: Record<string, CommandHandler> = { saslStart, saslContinue, authenticate, logout }
