import { createHash } from 'node:crypto'
import { Binary } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedDb } from '../embedded-db.js'

/** How many sessions one engine remembers; the least recently used is forgotten beyond it. */
const MAX_SESSIONS = 10_000
/** A session unused this long has expired, as with mongod's default `localLogicalSessionTimeoutMinutes`. */
const SESSION_TIMEOUT_MS = 30 * 60 * 1000
/** Without authentication a session's `uid` is the SHA-256 of the empty user name, as on mongod. */
const ANONYMOUS_UID = new Binary(createHash('sha256').update('').digest())

interface Seen {
  id: unknown
  lastUse: Date
}

/** The sessions (`lsid`s) the wire clients of each engine have used, for `$listLocalSessions`. */
const registries = new WeakMap<EmbeddedDb, Map<string, Seen>>()

/** Remembers the session a command carries (its `lsid`), if any. */
export function recordSession(engine: EmbeddedDb, command: Document): void {
  const lsid = command['lsid']
  if (typeof lsid !== 'object' || lsid === null) return
  const id = (lsid as Document)['id']
  if (!(id instanceof Binary)) return
  let sessions = registries.get(engine)
  if (!sessions) {
    sessions = new Map()
    registries.set(engine, sessions)
  }
  const key = id.toString('hex')
  sessions.delete(key)
  sessions.set(key, { id, lastUse: new Date() })
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!)
}

/** The engine's unexpired sessions, as `$listLocalSessions` shows them. */
export function localSessions(engine: EmbeddedDb): Document[] {
  const oldest = Date.now() - SESSION_TIMEOUT_MS
  const listed: Document[] = []
  for (const { id, lastUse } of registries.get(engine)?.values() ?? []) {
    if (lastUse.getTime() >= oldest) listed.push({ _id: { id, uid: ANONYMOUS_UID }, lastUse })
  }
  return listed
}
