import type { Db } from 'mongodb'

/**
 * The slice of the official driver's `Db` / `Collection` API that the store layer calls.
 * Both the driver's `Db` and the embedded engine's `EmbeddedDb` satisfy it; the assignment
 * at the bottom makes `tsc` prove that for the driver, so the two can never drift apart.
 */
export type Document = Record<string, unknown>

export interface DriverCursor extends AsyncIterable<Document> {
  toArray(): Promise<Document[]>
  close(): Promise<void>
}

export interface DriverFindOptions {
  sort?: Record<string, 1 | -1>
  skip?: number
  limit?: number
  projection?: Document
  maxTimeMS?: number
}

export interface DriverCollection {
  insertOne(doc: Document): Promise<{ acknowledged: boolean, insertedId: unknown }>
  findOne(filter: Document, options?: { projection?: Document, maxTimeMS?: number }): Promise<Document | null>
  find(filter: Document, options?: DriverFindOptions): DriverCursor
  countDocuments(filter: Document, options?: { maxTimeMS?: number }): Promise<number>
  /** The driver's count from collection metadata; optional, as the embedded engine has none (the store counts instead). */
  estimatedDocumentCount?(options?: { maxTimeMS?: number }): Promise<number>
  findOneAndReplace(
    filter: Document,
    replacement: Document,
    options: { returnDocument: 'after', maxTimeMS?: number }
  ): Promise<Document | null>
  findOneAndUpdate(
    filter: Document,
    update: Document,
    options: { returnDocument: 'after', arrayFilters?: Document[], projection?: Document, maxTimeMS?: number }
  ): Promise<Document | null>
  updateOne(
    filter: Document,
    update: Document,
    options?: { arrayFilters?: Document[], maxTimeMS?: number }
  ): Promise<{ matchedCount: number, modifiedCount: number }>
  deleteOne(filter: Document, options?: { maxTimeMS?: number }): Promise<{ deletedCount: number }>
  deleteMany(filter: Document, options?: { maxTimeMS?: number }): Promise<{ deletedCount: number }>
  aggregate(pipeline: Document[], options?: { maxTimeMS?: number }): DriverCursor
  createIndex(keys: Record<string, 1 | -1>, options?: { unique?: boolean, name?: string }): Promise<string>
  /** The collection's change stream (the driver's needs a replica set; the engine's reads its change log): the `_events` route. */
  watch?(pipeline: Document[], options: DriverWatchOptions): DriverChangeStream
}

/** The `watch()` options the `_events` route passes. */
export interface DriverWatchOptions {
  fullDocument?: 'updateLookup'
  fullDocumentBeforeChange?: 'whenAvailable'
  resumeAfter?: { _data: string }
}

/** The driver's `ChangeStream`, as far as the `_events` route reads it (events are driver change documents). */
export interface DriverChangeStream {
  tryNext(): Promise<unknown>
  next(): Promise<unknown>
  close(): Promise<void>
}

export interface DriverDb {
  collection(name: string): DriverCollection
  /**
   * The client behind the handle (the driver's `db.client`, the engine's alike): what starts the
   * sessions of transactions (atomic batches). A handle without one runs no transaction.
   */
  readonly client?: DriverClient | undefined
}

/** The driver's `MongoClient`, as far as transactions need it. */
export interface DriverClient {
  startSession(): DriverSession
}

/** The driver's `ClientSession`, as far as transactions need it: the operations given `{ session }` run inside. */
export interface DriverSession {
  withTransaction<T>(fn: () => Promise<T>): Promise<T>
  endSession(): Promise<void>
}

/**
 * The name of the database a handle reaches, when it tells one (the driver's `Db` and the engine's
 * do). The driver's `client.db(name)` makes a new handle on every call, so the name, not the handle,
 * says which database two routers share.
 */
export function databaseName(db: object): string | undefined {
  const name = (db as { databaseName?: unknown }).databaseName
  return typeof name === 'string' ? name : undefined
}

/** `T`, once `tsc` has checked that it is assignable to `Shape`: a check that emits no code. */
type Fits<T extends Shape, Shape> = T

// Compile-time proof that the official driver's Db fits the shape above (a type: nothing at run time).
type _DriverDbFits = Fits<Db, DriverDb>
