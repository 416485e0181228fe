import { Long } from 'mongodb'
import { AS_STORED, StoredBytes, type StoredFindOptions } from '../../bson/stored-bytes.js'
import { AS_HELD } from '../../bson/value-form.js'
import type { Document, FindOptions } from '../../document.js'
import { EmbeddedCollection } from '../../embedded-collection.js'
import { changeStreamGetMore } from '../change-stream-cursors.js'
import { failGetMoreAfterCheckout, failGetMoreArmed } from '../command-fail-point.js'
import { storedBatchReply } from '../stored-batch-reply.js'
import { typeMismatch } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import {
  type CommandContext,
  type CommandHandler,
  collectionName,
  optionalCount,
  optionalDocument,
  optionalNumber,
  refuseOptions,
  targetCollection,
} from './command-context.js'

/** `skip`, `limit` (a negative limit means the same count) and `maxTimeMS`, shared by find and count. */
export function pageOptions(command: Document): { skip?: number, limit?: number, maxTimeMS?: number } {
  const options: { skip?: number, limit?: number, maxTimeMS?: number } = {}
  const skip = optionalCount(command, 'skip')
  if (skip) options.skip = skip
  const limit = optionalNumber(command, 'limit')
  if (limit) options.limit = Math.abs(limit)
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  if (maxTimeMS) options.maxTimeMS = maxTimeMS
  return options
}

/** A find command's filter, and its options as the engine's find takes them (explain reads them too). */
export function findRequest(command: Document): { filter: Document, options: FindOptions } {
  refuseOptions(command, ['min', 'max', 'returnKey', 'showRecordId', 'tailable', 'awaitData'])
  const options: FindOptions = {}
  // A client's sort document as sent: the engine refuses orders other than 1 and -1 (BadValue).
  const sort = optionalDocument(command, 'sort')
  if (sort) options.sort = sort as Record<string, 1 | -1>
  const projection = optionalDocument(command, 'projection')
  if (projection) options.projection = projection
  Object.assign(options, pageOptions(command))
  if (command['let'] !== undefined && command['let'] !== null) options.let = command['let'] as Document
  options.collation = optionalCollation(command)
  return { filter: optionalDocument(command, 'filter') ?? {}, options }
}

/** find: options map onto the engine's find; the first batch comes back with a cursor id. */
const find: CommandHandler = async (command, context) => {
  const { filter, options } = findRequest(command)
  const collection = targetCollection(command, 'find', context)
  const projection = options.projection
  const limit = optionalNumber(command, 'limit')
  const single = command['singleBatch'] === true || (limit !== undefined && limit < 0)
  const ns = `${context.dbName}.${collection.collectionName}`
  // Documents as the engine holds them, each numeric type kept (value-form.ts), when they are not sent as stored.
  const held = { [AS_HELD]: true } as const
  if (single && isPlainFindOne(options, command)) {
    // The driver's findOne (limit 1, one batch): the engine's findOne, which reads an `_id` from its
    // key, without a cursor to open and close.
    const stored = EmbeddedCollection.storedPointOf(collection, filter)
    if (stored !== undefined) return storedBatchReply('firstBatch', stored === null ? [] : [new StoredBytes(stored)], Long.ZERO, ns)
    const doc = await collection.findOne(filter, held)
    return { cursor: { firstBatch: doc === null ? [] : [doc], id: Long.ZERO, ns }, ok: 1 }
  }
  // Without a projection, the documents go out as they are stored (stored-batch-reply.ts).
  const stored: StoredFindOptions = projection ? { ...options, ...held } : { ...options, [AS_STORED]: true }
  return firstBatch(context, ns, collection.find(filter, stored), command, single)
}

/** A find of at most one document and no other option: what findOne answers the same. */
function isPlainFindOne(options: FindOptions, command: Document): boolean {
  const batchSize = optionalCount(optionalDocument(command, 'cursor') ?? command, 'batchSize')
  if (batchSize === 0 || options.limit !== 1) return false
  return Object.entries(options).every(([name, value]) => value === undefined || (name === 'limit' && value === 1))
}

/** Opens a server cursor over `source` and answers with its first batch. */
export async function firstBatch(context: CommandContext, ns: string, source: AsyncIterable<Document>, command: Document, single = false): Promise<Document> {
  const batchSize = optionalCount(optionalDocument(command, 'cursor') ?? command, 'batchSize')
  const batch = await context.cursors.open(ns, source, context.connectionId, batchSize, single)
  return { cursor: { firstBatch: batch.docs, id: batch.id, ns }, ok: 1 }
}

/** getMore; the `failGetMoreAfterCursorCheckout` fail point fails one whose cursor was found, the cursor kept (command-fail-point.ts). */
const getMore: CommandHandler = async (command, context) => {
  const id = toCursorId(command['getMore'])
  const ns = `${context.dbName}.${collectionName(command['collection'], 'collection')}`
  const changes = await changeStreamGetMore(id, command, context, ns, failGetMoreAfterCheckout)
  if (changes) return changes
  if (failGetMoreArmed()) {
    // The cursor is checked (a batch of none: nothing read), then the fail point fails the getMore.
    await context.cursors.getMore(id, ns, 0)
    failGetMoreAfterCheckout()
  }
  const batch = await context.cursors.getMore(id, ns, optionalCount(command, 'batchSize'))
  return { cursor: { nextBatch: batch.docs, id: batch.id, ns }, ok: 1 }
}

const killCursors: CommandHandler = async (command, context) => {
  const ns = `${context.dbName}.${collectionName(command['killCursors'], 'killCursors')}`
  const ids = command['cursors']
  if (!Array.isArray(ids)) throw typeMismatch("'cursors' must be an array of cursor ids")
  const { killed, notFound } = await context.cursors.kill(ns, ids.map(toCursorId))
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 }
}

const count: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'count', context)
  const options = { ...pageOptions(command), collation: optionalCollation(command) }
  return { n: await collection.countDocuments(optionalDocument(command, 'query') ?? {}, options), ok: 1 }
}

/** Cursor ids are int64; small ones arrive as JS numbers (the BSON decoder promotes them). */
function toCursorId(value: unknown): Long {
  if (Long.isLong(value)) return value
  if (typeof value === 'number' && Number.isInteger(value)) return Long.fromNumber(value)
  if (typeof value === 'bigint') return Long.fromBigInt(value)
  throw typeMismatch('cursor id must be a 64-bit integer')
}

export const FIND_COMMANDS: Record<string, CommandHandler> = { find, getMore, killCursors, count }
