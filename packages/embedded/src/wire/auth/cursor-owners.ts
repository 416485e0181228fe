import { Long } from 'mongodb'
import type { Document } from '../../document.js'
import type { Peer } from '../server-activity.js'
import { unauthorized } from '../wire-error.js'

/** Past this many remembered cursors the oldest are forgotten (the server keeps at most maxCursors open: 10,000 by default). */
const MAX_REMEMBERED = 100_000

/**
 * Which user opened each cursor, so that with `--auth` only that user continues it (`getMore`) or
 * kills it (`killCursors`), as on mongod: a driver may send a `getMore` on any connection of its pool,
 * so the check is by user, not by connection. A cursor forgotten (too many remembered) is free to any
 * user with the privileges on its collection: its 64-bit id is random, still unguessable.
 */
export class CursorOwners {
  readonly #owners = new Map<string, string>()

  /** Refuses (13) a `getMore` or `killCursors` naming a cursor another user opened. */
  check(name: string, command: Document, peer: Peer): void {
    const ids = name === 'getMore' ? [command['getMore']] : name === 'killCursors' && Array.isArray(command['cursors']) ? command['cursors'] : []
    const user = userOf(peer)
    for (const id of ids) {
      const owner = this.#owners.get(idKey(id))
      if (owner !== undefined && owner !== user) throw unauthorized(`cursor id ${idKey(id)} was not created by the authenticated user`)
    }
  }

  /** Remembers the cursor a reply opened; forgets one a reply closed or killed. */
  record(name: string, command: Document, reply: Document, peer: Peer): void {
    if (name === 'killCursors' && Array.isArray(command['cursors'])) {
      for (const id of command['cursors']) this.#owners.delete(idKey(id))
      return
    }
    const cursor = reply['cursor'] as Document | undefined
    const id = cursor?.['id']
    if (id === undefined) return
    if (name === 'getMore') {
      if (idKey(id) === '0') this.#owners.delete(idKey(command['getMore']))
      return
    }
    if (idKey(id) === '0') return
    this.#owners.set(idKey(id), userOf(peer))
    if (this.#owners.size > MAX_REMEMBERED) this.#owners.delete(this.#owners.keys().next().value!)
  }
}

function userOf(peer: Peer): string {
  const user = peer.auth.user
  return user === undefined ? '' : `${user.db}.${user.user}`
}

/** A cursor id as text, whichever numeric type it arrived as (small ids may come as int32 or double). */
function idKey(id: unknown): string {
  if (Long.isLong(id) || typeof id === 'bigint') return id.toString()
  return String(Number(id))
}
