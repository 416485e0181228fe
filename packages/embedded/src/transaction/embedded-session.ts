import { randomUUID } from 'node:crypto'
import { Binary, MongoTransactionError } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedChangeStream, WatchOptions } from '../watch/change-stream.js'
import { EngineTransaction, type TransactionHost } from './engine-transaction.js'

interface DbLike<Db> {
  db(name: string): Db
  readonly databaseName: string
}

/**
 * `db.client` of the engine, as the driver's `MongoClient` is reached from a `Db`: what starts
 * sessions, so code written for the driver (`client.startSession()`, `session.withTransaction()`,
 * `{ session }` on each operation) runs its transactions on the engine unchanged, and what watches
 * every database at once (`client.watch()`).
 */
export class EmbeddedClient<Db extends DbLike<Db>> {
  readonly #host: TransactionHost<Db>
  readonly #watchAll: (pipeline: Document[], options: WatchOptions) => EmbeddedChangeStream
  readonly #open = new Set<EngineTransaction<Db>>()
  #numbers = 0

  constructor(host: TransactionHost<Db>, watchAll: (pipeline: Document[], options: WatchOptions) => EmbeddedChangeStream) {
    this.#host = host
    this.#watchAll = watchAll
  }

  /**
   * A change stream of every database of the engine but admin, config and local, as the driver's
   * `client.watch()`: their documents' changes, each collection's `drop` and `rename`, each
   * database's `dropDatabase` (the stream goes on after them).
   */
  watch(pipeline: Document[] = [], options: WatchOptions = {}): EmbeddedChangeStream {
    return this.#watchAll(pipeline, options)
  }

  startSession(): EmbeddedSession<Db> {
    return new EmbeddedSession(this)
  }

  /** A new transaction, aborted with the engine if still open when it closes. */
  begin(): EngineTransaction<Db> {
    const transaction = new EngineTransaction(this.#host, ++this.#numbers)
    this.#open.add(transaction)
    return transaction
  }

  /** Forgets a transaction that ended. */
  ended(transaction: EngineTransaction<Db>): void {
    this.#open.delete(transaction)
  }

  /** Aborts every open transaction (the engine is closing: their writes are dropped, their queues freed). */
  async abortAll(): Promise<void> {
    await Promise.all([...this.#open].map((transaction) => transaction.abort()))
    this.#open.clear()
  }
}

/**
 * A session of the engine, shaped as the driver's `ClientSession` for what transactions need:
 * `startTransaction`, `commitTransaction`, `abortTransaction`, `withTransaction`, `inTransaction`,
 * `endSession`. An operation given `{ session }` while its transaction is open runs inside it.
 */
export class EmbeddedSession<Db extends DbLike<Db>> {
  readonly client: EmbeddedClient<Db>
  readonly id = { id: new Binary(Buffer.from(randomUUID().replaceAll('-', ''), 'hex'), Binary.SUBTYPE_UUID) }
  #transaction: EngineTransaction<Db> | undefined
  #ended = false

  constructor(client: EmbeddedClient<Db>) {
    this.client = client
  }

  get hasEnded(): boolean {
    return this.#ended
  }

  /** The transaction operations given this session run in; undefined outside one. */
  get transaction(): EngineTransaction<Db> | undefined {
    return this.#transaction?.state === 'open' ? this.#transaction : undefined
  }

  inTransaction(): boolean {
    return this.transaction !== undefined
  }

  startTransaction(): void {
    if (this.#ended) throw new MongoTransactionError('Cannot use a session that has ended')
    if (this.inTransaction()) throw new MongoTransactionError('Transaction already in progress')
    this.#transaction = this.client.begin()
  }

  async commitTransaction(): Promise<void> {
    const transaction = this.#transaction
    if (transaction === undefined) throw new MongoTransactionError('No transaction started')
    if (transaction.state === 'aborted') throw new MongoTransactionError('Cannot call commitTransaction after calling abortTransaction')
    try {
      await transaction.commit()
    } finally {
      this.client.ended(transaction)
    }
  }

  async abortTransaction(): Promise<void> {
    const transaction = this.#transaction
    if (transaction === undefined) throw new MongoTransactionError('No transaction started')
    if (transaction.state === 'committed') throw new MongoTransactionError('Cannot call abortTransaction after calling commitTransaction')
    await transaction.abort()
    this.client.ended(transaction)
  }

  /**
   * Runs `fn` in a new transaction and commits it, as the driver's `withTransaction`: when `fn`
   * throws, the transaction is aborted and the error propagates, unless it is labelled
   * `TransientTransactionError` (a write conflict: another write changed a document the transaction
   * wrote after its snapshot). `fn` then runs again in a new transaction, on fresh data, for up to
   * two minutes, as the driver retries.
   */
  async withTransaction<T>(fn: (session: this) => Promise<T>): Promise<T> {
    const started = Date.now()
    for (;;) {
      this.startTransaction()
      const transaction = this.#transaction!
      try {
        const result = await fn(this)
        await this.commitTransaction()
        return result
      } catch (error) {
        if (transaction.state === 'open') await transaction.abort()
        this.client.ended(transaction)
        if (!isTransient(error) || Date.now() - started >= RETRY_FOR_MS) throw error
      }
    }
  }

  /** Aborts an open transaction; the session cannot start another. */
  async endSession(): Promise<void> {
    if (this.#transaction?.state === 'open') await this.abortTransaction()
    this.#ended = true
  }
}

/** How long `withTransaction` runs a transaction again after transient errors: the driver's limit. */
const RETRY_FOR_MS = 120_000

function isTransient(error: unknown): boolean {
  const labels = (error as { errorLabels?: unknown } | null)?.errorLabels
  return Array.isArray(labels) && labels.includes('TransientTransactionError')
}

/** The open transaction `session` names (an option of an operation), if it is one of the engine's. */
export function openTransactionOf(session: unknown): { db(name: string): unknown } | undefined {
  return session instanceof EmbeddedSession ? session.transaction : undefined
}
