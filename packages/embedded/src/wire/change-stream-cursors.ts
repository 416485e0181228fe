import type { Long } from 'mongodb'
import { tokenOf } from '../changes/change-document.js'
import type { Document } from '../document.js'
import type { EmbeddedChangeStream, WatchOptions } from '../watch/change-stream.js'
import { type CommandContext, collectionName, optionalCount, optionalDocument } from './commands/command-context.js'
import { badValue } from './wire-error.js'

/** The server's first batch of an aggregation, in documents. */
const DEFAULT_FIRST_BATCH = 101
/** How long a change stream's getMore waits for a change when the client sets no `maxTimeMS` (the server's awaitData default). */
const DEFAULT_AWAIT_MS = 1000
/** `$changeStream` options the engine reads; the others a driver sends are accepted and change nothing. */
const IMAGE_VALUES = { fullDocument: ['default', 'updateLookup', 'whenAvailable', 'required'], fullDocumentBeforeChange: ['off', 'whenAvailable', 'required'] }

/** The change streams behind open cursors, by cursor id. */
const streams = new Map<string, EmbeddedChangeStream>()

/**
 * `aggregate` whose first stage is `$changeStream`: the collection's `watch()` (watch/change-stream.ts)
 * behind a cursor of the server's cursor registry, so that killCursors, a closed connection and the
 * idle reaper close it as any cursor. Its getMores wait for changes (awaitData) instead of ending.
 */
export async function openChangeStream(command: Document, context: CommandContext, pipeline: Document[]): Promise<Document> {
  if (command['aggregate'] === 1) throw badValue('$changeStream on a whole database or cluster is not supported by this engine: watch a collection')
  const name = collectionName(command['aggregate'], 'aggregate')
  const [stage, ...rest] = pipeline
  const spec = (stage as Document)['$changeStream']
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw badValue('$changeStream takes an object of options')
  const stream = context.db.collection(name).watch(rest, watchOptionsOf(spec as Document))
  const ns = `${context.dbName}.${name}`
  const batchSize = optionalCount(optionalDocument(command, 'cursor') ?? {}, 'batchSize') ?? DEFAULT_FIRST_BATCH
  const firstBatch = await stream.nextBatch(batchSize, 0)
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

/** A getMore of a change stream's cursor (undefined when `id` is no such cursor): the changes that come within `maxTimeMS`. */
export async function changeStreamGetMore(id: Long, command: Document, context: CommandContext, ns: string): Promise<Document | undefined> {
  const stream = streams.get(id.toString())
  if (stream === undefined) return undefined
  // Through the registry: the namespace is checked and the cursor's idle time starts again.
  await context.cursors.getMore(id, ns, 0)
  const batchSize = optionalCount(command, 'batchSize') ?? Number.POSITIVE_INFINITY
  const nextBatch = await stream.nextBatch(batchSize, optionalCount(command, 'maxTimeMS') ?? DEFAULT_AWAIT_MS)
  return { cursor: { nextBatch, postBatchResumeToken: stream.postBatchResumeToken, id, ns }, ok: 1 }
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
  // A time this engine gave (a change's clusterTime, its number as the increment): the changes from that one on.
  const at = spec['startAtOperationTime'] as { low?: unknown } | undefined
  if (at !== undefined && options.resumeAfter === undefined && options.startAfter === undefined) {
    if (typeof at?.low !== 'number') throw badValue('$changeStream startAtOperationTime must be a timestamp')
    options.resumeAfter = tokenOf(Math.max(0, at.low - 1))
  }
  return options
}
