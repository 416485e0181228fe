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
}

export interface DriverDb {
  collection(name: string): DriverCollection
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
