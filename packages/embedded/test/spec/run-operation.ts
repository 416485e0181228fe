import { type BulkWriteResult, ChangeStream, ClientSession, Collection, Db, type Document, MongoBulkWriteError, MongoClient, MongoError, MongoServerError } from 'mongodb'
import { runChangeStreamOperation } from './change-stream-operations.ts'
import type { EntityMap } from './entities.ts'
import { isDocument, matchValue, show } from './match.ts'
import { runSessionOperation } from './session-operations.ts'
import { runTestRunnerOperation } from './test-runner-operations.ts'
import { type FailureKind, UnifiedTestFailure } from './unified-test-failure.ts'

export interface UnifiedOperation {
  name: string
  object: string
  arguments?: Document
}

export interface ExpectedError {
  isError?: boolean
  isClientError?: boolean
  isTimeoutError?: boolean
  errorCode?: number
  errorCodeName?: string
  errorContains?: string
  errorLabelsContain?: string[]
  errorLabelsOmit?: string[]
  errorResponse?: Document
  expectResult?: unknown
  writeErrors?: unknown
  writeConcernErrors?: unknown
}

type CollectionOperation = (collection: Collection, args: Document) => Promise<unknown>

/** Each CRUD operation of the format, as the official driver's call (arguments renamed where the driver's names differ). */
const COLLECTION_OPERATIONS: Record<string, CollectionOperation> = {
  aggregate: (collection, { pipeline, ...options }) => collection.aggregate(pipeline, options).toArray(),
  bulkWrite: async (collection, { requests, ...options }) => toPlainResult(await collection.bulkWrite(requests, options)),
  count: (collection, { filter, ...options }) => collection.count(filter, options),
  countDocuments: (collection, { filter, ...options }) => collection.countDocuments(filter, options),
  estimatedDocumentCount: (collection, options) => collection.estimatedDocumentCount(options),
  distinct: (collection, { fieldName, filter, ...options }) => collection.distinct(fieldName, filter, options),
  find: (collection, { filter, ...options }) => collection.find(filter, options).toArray(),
  findOne: (collection, { filter, ...options }) => collection.findOne(filter, options),
  findOneAndDelete: (collection, { filter, ...options }) => collection.findOneAndDelete(filter, options),
  findOneAndReplace: (collection, { filter, replacement, ...options }) => collection.findOneAndReplace(filter, replacement, toReturnDocument(options)),
  findOneAndUpdate: (collection, { filter, update, ...options }) => collection.findOneAndUpdate(filter, update, toReturnDocument(options)),
  insertOne: (collection, { document, ...options }) => collection.insertOne(document, options),
  insertMany: (collection, { documents, ...options }) => collection.insertMany(documents, options),
  updateOne: (collection, { filter, update, ...options }) => collection.updateOne(filter, update, options),
  updateMany: (collection, { filter, update, ...options }) => collection.updateMany(filter, update, options),
  replaceOne: (collection, { filter, replacement, ...options }) => collection.replaceOne(filter, replacement, options),
  deleteOne: (collection, { filter, ...options }) => collection.deleteOne(filter, options),
  deleteMany: (collection, { filter, ...options }) => collection.deleteMany(filter, options),
  createIndex: (collection, { keys, ...options }) => collection.createIndex(keys, options),
  dropIndex: (collection, { name, ...options }) => collection.dropIndex(name, options),
  listIndexes: (collection, options) => collection.listIndexes(options).toArray(),
  rename: async (collection, { to, ...options }) => {
    await collection.rename(to, options)
  },
  createChangeStream: (collection, { pipeline, ...options }) => openChangeStream(collection.watch(pipeline, options)),
}

type DatabaseOperation = (db: Db, args: Document) => Promise<unknown>

const DATABASE_OPERATIONS: Record<string, DatabaseOperation> = {
  aggregate: (db, { pipeline, ...options }) => db.aggregate(pipeline, options).toArray(),
  createCollection: async (db, { collection, ...options }) => {
    await db.createCollection(collection, options)
  },
  dropCollection: async (db, { collection, ...options }) => {
    await db.dropCollection(collection, options)
  },
  listCollections: (db, { filter, ...options }) => db.listCollections(filter, options).toArray(),
  modifyCollection: (db, { collection, ...options }) => db.command({ collMod: collection, ...options }),
  runCommand: (db, { command, commandName: _commandName, ...options }) => db.command(command, options),
  createChangeStream: (db, { pipeline, ...options }) => openChangeStream(db.watch(pipeline, options)),
}

type ClientOperation = (client: MongoClient, args: Document) => Promise<unknown>

const CLIENT_OPERATIONS: Record<string, ClientOperation> = {
  clientBulkWrite: (client, args) => runClientBulkWrite(client, args),
  createChangeStream: (client, { pipeline, ...options }) => openChangeStream(client.watch(pipeline, options)),
  listDatabases: async (client, options) => (await client.db('admin').admin().listDatabases(options)).databases,
}

/**
 * The format's `createChangeStream`: the stream's `aggregate` has run when the operation ends (the
 * driver's `watch()` sends it on the first read), and no change is consumed. The driver's cursor
 * has no public call that only opens it: `cursorInit` is its own.
 */
async function openChangeStream(stream: ChangeStream): Promise<ChangeStream> {
  await (stream as unknown as { cursor: { cursorInit(): Promise<void> } }).cursor.cursorInit()
  return stream
}

/** Runs a nested operation with its expectations (withTransaction's callback). */
export type RunNested = (operation: UnifiedOperation & Document) => Promise<void>

/**
 * Runs one operation on its entity and returns the driver's result in the shape the format
 * describes. A `session` argument names a session entity, passed on as the driver's session.
 */
export async function runOperation(operation: UnifiedOperation, map: EntityMap, runNested: RunNested): Promise<unknown> {
  const args: Document = { ...operation.arguments }
  if (typeof args['session'] === 'string') args['session'] = map.session(args['session'])
  if (operation.object === 'testRunner') return runTestRunnerOperation(operation.name, args, map)
  const target = map.get(operation.object)
  if (target instanceof ClientSession) return runSessionOperation(operation.name, target, args, map, runNested)
  if (target instanceof ChangeStream) return runChangeStreamOperation(operation.name, target)
  const run = target instanceof Collection ? COLLECTION_OPERATIONS[operation.name]
    : target instanceof Db ? DATABASE_OPERATIONS[operation.name]
      : target instanceof MongoClient ? CLIENT_OPERATIONS[operation.name]
        : undefined
  if (!run) throw new UnifiedTestFailure('runner', `the runner does not support ${operation.object}.${operation.name}`)
  const result = await (run as (target: unknown, args: Document) => Promise<unknown>)(target, args)
  if (result instanceof ChangeStream) map.changeStreams.push(result)
  return result
}

/** The format writes a model as `{ insertOne: { namespace, document } }`; the driver takes `{ name: 'insertOne', namespace, document }`. */
function runClientBulkWrite(client: MongoClient, { models, ...options }: Document): Promise<unknown> {
  const driverModels = (models as Document[]).map((model) => {
    const [name, fields] = Object.entries(model)[0] as [string, Document]
    return { name, ...fields }
  })
  return client.bulkWrite(driverModels as unknown as Parameters<MongoClient['bulkWrite']>[0], options)
}

/** The format spells `returnDocument` "Before"/"After"; the driver takes "before"/"after". */
function toReturnDocument(options: Document): Document {
  const returnDocument = options['returnDocument']
  return typeof returnDocument === 'string' ? { ...options, returnDocument: returnDocument.toLowerCase() } : options
}

/** A BulkWriteResult's counts and ids as a plain document (its fields are getters the matcher would not see as keys). */
export function toPlainResult(value: unknown): unknown {
  // The driver exports BulkWriteResult as a type only, so it is recognised by its fields.
  if (value === null || typeof value !== 'object' || isDocument(value) || !('upsertedIds' in value)) return value
  const result = value as BulkWriteResult
  return {
    insertedCount: result.insertedCount,
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    deletedCount: result.deletedCount,
    upsertedCount: result.upsertedCount,
    upsertedIds: result.upsertedIds,
    insertedIds: result.insertedIds,
  }
}

/** Checks an error against `expectError`; undefined when it matches. */
export function checkExpectedError(expected: ExpectedError, error: unknown): { kind: FailureKind, message: string } | undefined {
  const wrong = (message: string) => ({ kind: 'wrong-error' as const, message: `${message}; got ${describeError(error)}` })
  const isServerError = error instanceof MongoServerError
  if (expected.isClientError === true && isServerError) return wrong('expected a client-side error')
  if (expected.isClientError === false && !isServerError) return wrong('expected a server error')
  if (expected.isTimeoutError) return { kind: 'runner', message: 'the runner does not check timeout errors' }
  const serverError = isServerError ? error : undefined
  const firstWriteError = error instanceof MongoBulkWriteError ? error.writeErrors : undefined
  const writeError = Array.isArray(firstWriteError) ? firstWriteError[0] : firstWriteError
  if (expected.errorCode !== undefined) {
    const codes = [serverError?.code, writeError?.code, serverError?.errorResponse?.['code']]
    if (!codes.includes(expected.errorCode)) return wrong(`expected error code ${expected.errorCode}`)
  }
  if (expected.errorCodeName !== undefined) {
    const names = [serverError?.codeName, serverError?.errorResponse?.['codeName']]
    if (!names.includes(expected.errorCodeName)) return wrong(`expected error code name ${expected.errorCodeName}`)
  }
  if (expected.errorContains !== undefined) {
    const message = error instanceof Error ? error.message : String(error)
    if (!message.toLowerCase().includes(expected.errorContains.toLowerCase())) return wrong(`expected an error containing "${expected.errorContains}"`)
  }
  for (const label of expected.errorLabelsContain ?? []) {
    if (!(error instanceof MongoError && error.hasErrorLabel(label))) return wrong(`expected the error label ${label}`)
  }
  for (const label of expected.errorLabelsOmit ?? []) {
    if (error instanceof MongoError && error.hasErrorLabel(label)) return wrong(`expected no error label ${label}`)
  }
  if (expected.errorResponse !== undefined) {
    const mismatch = matchValue(expected.errorResponse, serverError?.errorResponse)
    if (mismatch) return wrong(`error response: ${mismatch}`)
  }
  if ('expectResult' in expected) {
    const partial = error instanceof MongoBulkWriteError ? toPlainResult(error.result) : undefined
    const mismatch = matchValue(expected.expectResult, partial)
    if (mismatch) return { kind: 'silent', message: `partial result of the failed operation: ${mismatch}` }
  }
  if (expected.writeErrors !== undefined || expected.writeConcernErrors !== undefined) {
    return { kind: 'runner', message: 'the runner does not check writeErrors/writeConcernErrors (client bulk write only)' }
  }
  return undefined
}

/** An error on one line: class, code and message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return show(error)
  const code = (error as { code?: unknown }).code
  return `${error.name}${code === undefined ? '' : ` ${String(code)}`}: ${error.message}`
}
