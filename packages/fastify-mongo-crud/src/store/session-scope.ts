import { AsyncLocalStorage } from 'node:async_hooks'
import type { Document, DriverCollection, DriverDb, DriverSession } from './driver-db.js'
import { asUnavailable } from './store-unavailable.js'

/**
 * The session of the transaction the current operation runs in (an atomic batch), if any. Every
 * store call made while `inTransaction` runs its function carries it (`{ session }`, as the driver
 * takes it), so the resources and stores need no parameter for it: the same code runs alone or in
 * a transaction.
 */
const current = new AsyncLocalStorage<{ readonly session: DriverSession, readonly client: unknown }>()

/** Where each method of the collection takes its options: the argument after these many. */
const OPTIONS_AT = {
  insertOne: 1,
  findOne: 1,
  find: 1,
  countDocuments: 1,
  estimatedDocumentCount: 0,
  findOneAndReplace: 2,
  findOneAndUpdate: 2,
  updateOne: 2,
  deleteOne: 1,
  deleteMany: 1,
  aggregate: 1,
  createIndex: 1,
  watch: 1,
} as const satisfies Record<keyof DriverCollection, number>

/**
 * `collection` of `db`, whose calls carry the current transaction's session when there is one and it
 * belongs to `db`'s client (another client's session would be refused by the driver). Outside a
 * transaction the calls are the collection's own, unchanged.
 */
export function sessionBound(db: DriverDb, collection: DriverCollection): DriverCollection {
  const bound: Record<string, unknown> = {}
  for (const [name, at] of Object.entries(OPTIONS_AT)) {
    const method = (collection as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>)[name]
    if (typeof method !== 'function') continue
    bound[name] = (...args: unknown[]) => {
      const scope = current.getStore()
      if (scope === undefined || scope.client !== db.client) return method.apply(collection, args)
      const options = (args[at] ?? {}) as Document
      const withSession = [...args.slice(0, at), { ...options, session: scope.session }]
      return method.apply(collection, withSession)
    }
  }
  return bound as unknown as DriverCollection
}

/**
 * Runs `fn` in one transaction of `db` (`client.startSession()`, `session.withTransaction()`, as
 * the official driver has them; the embedded engine's `Db` has the same): its writes apply together
 * or not at all. The driver may run `fn` again on a transient conflict, so `fn` starts afresh each
 * time. Undefined `client`: the database handle offers no transactions.
 */
export async function inTransaction<T>(db: DriverDb, fn: () => Promise<T>): Promise<T> {
  const client = db.client
  if (client === undefined) throw new TransactionsUnavailable('the database handle has no client to start a session with')
  let session: DriverSession
  try {
    session = client.startSession()
  } catch (error) {
    // A closed client or engine refuses a session before anything is sent.
    throw asUnavailable(error, 'read') ?? error
  }
  try {
    return await session.withTransaction(() => current.run({ session, client }, fn))
  } catch (error) {
    if (isStandaloneRefusal(error)) throw new TransactionsUnavailable('the database is a standalone MongoDB server, which has no transactions', { cause: error })
    // What the driver's retries let out: a commit cut off (whether it applied is unknown), or an
    // operation's connection lost on the last attempt. Errors of the operations are already translated.
    throw asUnavailable(error, 'write') ?? error
  } finally {
    // Ending a session is bookkeeping: a database out of reach must not replace the answer.
    await session.endSession().catch(() => undefined)
  }
}

/** The database cannot run transactions: a standalone MongoDB, or a handle without a client. */
export class TransactionsUnavailable extends Error {
  override readonly name = 'TransactionsUnavailable'
}

/** What a standalone mongod answers to a transaction's first command: IllegalOperation (20). */
function isStandaloneRefusal(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  return code === 20 && /replica set member or mongos/.test(String(message))
}
