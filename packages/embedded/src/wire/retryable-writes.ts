import { BSON } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedDb } from '../embedded-db.js'
import { notARetryableWriteError, transactionTooOldError } from '../errors.js'

/** The commands a driver sends as retryable writes (MongoDB 7.0's: `bulkWrite` is 8.0's, which the server does not claim). */
const RETRYABLE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify'])
/** Sessions whose last retryable write is remembered; the least recently used is forgotten beyond it. */
const MAX_SESSIONS = 10_000
/**
 * Bytes of remembered replies, over all sessions: a findAndModify's reply holds a document (up to
 * 16 MiB), and ten thousand of them must not hold the server's memory. Past it the least recently
 * used sessions are forgotten (a retry of theirs then runs again, as after mongod's
 * `transactionLifetimeLimit`: drivers retry at once, within a second, or not at all).
 */
const MAX_REMEMBERED_BYTES = 64 * 1024 * 1024

/** The latest retryable write of one session: its number, and its reply once it ran (pending while it runs). */
interface LastWrite {
  txnNumber: number
  reply: Promise<Document | undefined>
  bytes: number
}

interface Registry {
  sessions: Map<string, LastWrite>
  bytes: number
}

const registries = new WeakMap<EmbeddedDb, Registry>()

/**
 * A retryable write (a command with a session's `lsid` and `txnNumber`, outside a transaction): run
 * once. A retry of it (the same session and number, sent again after a network error or a
 * retryable error) is answered with the reply of the run that succeeded, without running again, as
 * mongod answers from its oplog; one sent while the first still runs waits for it. An older number
 * than the session's latest is refused (TransactionTooOld, 225). A run that failed as a whole
 * (`ok: 0`: nothing was applied) is not remembered: its retry runs.
 *
 * A reply is remembered whole (per statement, as mongod, only matters for a batch a retry would
 * split differently; drivers retry the same command). Only each session's latest write is kept.
 */
export async function runRetryableWrite(engine: EmbeddedDb, name: string, session: string, txnNumber: number, run: () => Promise<Document>): Promise<Document> {
  if (!RETRYABLE_COMMANDS.has(name)) throw notARetryableWriteError(name)
  const registry = registryOf(engine)
  const last = registry.sessions.get(session)
  if (last !== undefined && txnNumber < last.txnNumber) throw transactionTooOldError(txnNumber, last.txnNumber)
  if (last !== undefined && txnNumber === last.txnNumber) {
    const first = await last.reply
    if (first !== undefined) return first
  }
  const running = run()
  const entry: LastWrite = { txnNumber, reply: running.then((reply) => (reply['ok'] === 1 ? reply : undefined), () => undefined), bytes: 0 }
  remember(registry, session, entry)
  const reply = await running.catch((error: unknown) => {
    forget(registry, session, entry)
    throw error
  })
  if (reply['ok'] !== 1) forget(registry, session, entry)
  else account(registry, entry, reply)
  return reply
}

function remember(registry: Registry, session: string, entry: LastWrite): void {
  const previous = registry.sessions.get(session)
  if (previous !== undefined) registry.bytes -= previous.bytes
  registry.sessions.delete(session)
  registry.sessions.set(session, entry)
  trim(registry)
}

function forget(registry: Registry, session: string, entry: LastWrite): void {
  if (registry.sessions.get(session) !== entry) return
  registry.sessions.delete(session)
  registry.bytes -= entry.bytes
}

/** Counts a remembered reply's size against the budget (a reply is small but for findAndModify's document). */
function account(registry: Registry, entry: LastWrite, reply: Document): void {
  entry.bytes = BSON.calculateObjectSize(reply)
  registry.bytes += entry.bytes
  trim(registry)
}

/** Forgets the least recently used sessions while there are too many, or their replies too large. */
function trim(registry: Registry): void {
  for (const [key, oldest] of registry.sessions) {
    if (registry.sessions.size <= MAX_SESSIONS && registry.bytes <= MAX_REMEMBERED_BYTES) return
    registry.sessions.delete(key)
    registry.bytes -= oldest.bytes
  }
}

/** `endSessions`: what the sessions' retryable writes left is forgotten. */
export function forgetRetryableWrites(engine: EmbeddedDb, sessions: string[]): void {
  const registry = registries.get(engine)
  if (registry === undefined) return
  for (const session of sessions) {
    const entry = registry.sessions.get(session)
    if (entry !== undefined) forget(registry, session, entry)
  }
}

function registryOf(engine: EmbeddedDb): Registry {
  let registry = registries.get(engine)
  if (!registry) {
    registry = { sessions: new Map(), bytes: 0 }
    registries.set(engine, registry)
  }
  return registry
}
