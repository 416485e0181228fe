import { Long } from 'mongodb'
import type { Document } from '../document.js'
import { serverError } from '../errors.js'
import type { EmbeddedChangeStream, WatchOptions } from '../watch/change-stream.js'
import { type CommandContext, collectionName, optionalCount, optionalDocument } from './commands/command-context.js'
import { badValue, invalidNamespace } from './wire-error.js'

/** The server's first batch of an aggregation, in documents. */
const DEFAULT_FIRST_BATCH = 101
/** How long a change stream's getMore waits for a change when the client sets no `maxTimeMS` (the server's awaitData default). */
const DEFAULT_AWAIT_MS = 1000
/** `$changeStream` options the engine reads; the others a driver sends are accepted and change nothing. */
const IMAGE_VALUES = { fullDocument: ['default', 'updateLookup', 'whenAvailable', 'required'], fullDocumentBeforeChange: ['off', 'whenAvailable', 'required'] }
/**
 * The errors after which a driver resumes a change stream (its "resumable" codes): a getMore of a
 * change stream failing with one of them is labelled `ResumableChangeStreamError`, as mongod labels
 * it, and the driver opens the stream again from its last resume token.
 */
const RESUMABLE_CODES = new Set([6, 7, 43, 63, 89, 91, 133, 150, 189, 234, 262, 9001, 10107, 11600, 11602, 13388, 13435, 13436])

/** ChangeStreamFatalError: the stream cannot go on from where it is (a resume token it cannot read, an event's `_id` changed by the pipeline). */
const FATAL = 280

/** The change streams behind open cursors, by cursor id. */
const streams = new Map<string, EmbeddedChangeStream>()

/**
 * `aggregate` whose first stage is `$changeStream`: a `watch()` of the engine behind a cursor of the
 * server's cursor registry, so that killCursors, a closed connection and the idle reaper close it as
 * any cursor. On a collection it watches that collection; with `aggregate: 1` the database, or on
 * `admin` with `allChangesForCluster: true` every database. Its getMores wait for changes (awaitData)
 * instead of ending; the batch that holds an `invalidate` event is the stream's last (cursor id 0).
 */
export async function openChangeStream(command: Document, context: CommandContext, pipeline: Document[]): Promise<Document> {
  const [stage, ...rest] = pipeline
  const spec = (stage as Document)['$changeStream']
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw badValue('$changeStream takes an object of options')
  const stream = watchOf(command, context, spec as Document, rest)
  const ns = `${context.dbName}.${command['aggregate'] === 1 ? '$cmd.aggregate' : command['aggregate']}`
  const batchSize = optionalCount(optionalDocument(command, 'cursor') ?? {}, 'batchSize') ?? DEFAULT_FIRST_BATCH
  const firstBatch = await stream.nextBatch(batchSize, 0).catch((error: unknown) => {
    throw labelled(error)
  })
  if (stream.closed) return { cursor: { firstBatch, postBatchResumeToken: stream.postBatchResumeToken, id: Long.ZERO, ns }, ok: 1 }
  let id: Long | undefined
  const iterator: AsyncIterator<Document> = {
    next: async () => ({ done: true, value: undefined }),
    return: async () => {
      if (id !== undefined) streams.delete(id.toString())
      await stream.close()
      return { done: true, value: undefined }
    },
  }
  // A batch of 0 from the registry: it only registers the cursor (its id, owner and idle time).
  id = (await context.cursors.open(ns, { [Symbol.asyncIterator]: () => iterator }, context.connectionId, 0, false)).id
  streams.set(id.toString(), stream)
  return { cursor: { firstBatch, postBatchResumeToken: stream.postBatchResumeToken, id, ns }, ok: 1 }
}

/** The stream an aggregate asks for: of its collection, of its database (`aggregate: 1`), or of every database. */
function watchOf(command: Document, context: CommandContext, spec: Document, pipeline: Document[]): EmbeddedChangeStream {
  const options = watchOptionsOf(spec)
  if (command['aggregate'] !== 1) return context.db.collection(collectionName(command['aggregate'], 'aggregate')).watch(pipeline, options)
  if (spec['allChangesForCluster'] !== true) {
    if (context.dbName === 'admin') throw invalidNamespace("$changeStream on the admin database needs allChangesForCluster: true, to watch every database")
    return context.db.watch(pipeline, options)
  }
  if (context.dbName !== 'admin') throw invalidNamespace('$changeStream with allChangesForCluster: true must be run against the admin database')
  return context.engine.client.watch(pipeline, options)
}

/**
 * A getMore of a change stream's cursor (undefined when `id` is no such cursor): the changes that
 * come within `maxTimeMS`. A failure of it with a resumable code is labelled for the driver to resume.
 */
export async function changeStreamGetMore(id: Long, command: Document, context: CommandContext, ns: string, failure: (() => void) | undefined): Promise<Document | undefined> {
  const stream = streams.get(id.toString())
  if (stream === undefined) return undefined
  try {
    // Through the registry: the namespace is checked and the cursor's idle time starts again.
    await context.cursors.getMore(id, ns, 0)
    failure?.()
    const batchSize = optionalCount(command, 'batchSize') ?? Number.POSITIVE_INFINITY
    const nextBatch = await stream.nextBatch(batchSize, optionalCount(command, 'maxTimeMS') ?? DEFAULT_AWAIT_MS)
    const token = stream.postBatchResumeToken
    if (!stream.closed) return { cursor: { nextBatch, postBatchResumeToken: token, id, ns }, ok: 1 }
    await context.cursors.kill(ns, [id])
    return { cursor: { nextBatch, postBatchResumeToken: token, id: Long.ZERO, ns }, ok: 1 }
  } catch (error) {
    throw labelled(error)
  }
}

/**
 * The error with the label mongod gives a change stream's: `ResumableChangeStreamError` when its code
 * is one a driver resumes after, `NonResumableChangeStreamError` for ChangeStreamFatalError.
 */
function labelled(error: unknown): unknown {
  const { code, codeName, message } = error as { code?: unknown, codeName?: unknown, message?: unknown }
  if (typeof code !== 'number' || (!RESUMABLE_CODES.has(code) && code !== FATAL)) return error
  const copy = serverError(code, typeof codeName === 'string' ? codeName : `Location${code}`, String(message))
  for (const label of (error as { errorLabels?: string[] }).errorLabels ?? []) copy.addErrorLabel(label)
  copy.addErrorLabel(code === FATAL ? 'NonResumableChangeStreamError' : 'ResumableChangeStreamError')
  return copy
}

function watchOptionsOf(spec: Document): WatchOptions {
  const options: WatchOptions = {}
  for (const [name, allowed] of Object.entries(IMAGE_VALUES)) {
    const value = spec[name]
    if (value === undefined) continue
    if (typeof value !== 'string' || !allowed.includes(value)) throw badValue(`$changeStream ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
    ;(options as Record<string, unknown>)[name] = value
  }
  if (spec['resumeAfter'] !== undefined) options.resumeAfter = spec['resumeAfter']
  if (spec['startAfter'] !== undefined) options.startAfter = spec['startAfter']
  if (spec['showExpandedEvents'] === true) options.showExpandedEvents = true
  // A time this engine gave (a change's clusterTime, a reply's operationTime): the changes from that one on.
  if (spec['startAtOperationTime'] !== undefined && options.resumeAfter === undefined && options.startAfter === undefined) {
    options.startAtOperationTime = spec['startAtOperationTime'] as WatchOptions['startAtOperationTime']
  }
  return options
}
