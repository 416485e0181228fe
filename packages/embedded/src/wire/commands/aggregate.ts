import { Long } from 'mongodb'
import type { Document } from '../../document.js'
import { openChangeStream } from '../change-stream-cursors.js'
import { localSessions } from '../session-registry.js'
import { badValue } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, collectionName, optionalCount, refuseOptions, requiredArray } from './command-context.js'
import { firstBatch } from './find.js'

/**
 * aggregate on a collection, or on the database (`aggregate: 1`, first stage `$documents` or
 * `$listLocalSessions`): the engine runs the pipeline (mingo stages, the engine's own BSON-ordered
 * `$sort`) and the result is served through a cursor. A pipeline ending in `$out` or `$merge`
 * writes before the reply, which has an empty first batch, as the server's. `explain` is refused.
 */
const aggregate: CommandHandler = async (command, context) => {
  refuseOptions(command, ['explain'])
  if (typeof command['cursor'] !== 'object' || command['cursor'] === null) {
    throw badValue("The 'cursor' option is required, except for aggregate with the explain argument")
  }
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const options = {
    collation: optionalCollation(command),
    ...(maxTimeMS ? { maxTimeMS } : {}),
    ...(command['let'] != null ? { let: command['let'] as Document } : {}),
    // No external sort: the engine's sort memory limit holds all the same, its error says so.
    ...(command['allowDiskUse'] === true ? { allowDiskUse: true } : {}),
  }
  const pipeline = requiredArray(command, 'pipeline')
  // A change stream (`collection.watch()` of a driver): a cursor whose getMores wait for changes.
  if (isChangeStream(pipeline)) return openChangeStream(command, context, pipeline)
  const databaseLevel = command['aggregate'] === 1
  const name = databaseLevel ? '$cmd.aggregate' : collectionName(command['aggregate'], 'aggregate')
  const cursor = databaseLevel
    ? context.db.aggregate(pipeline, { ...options, localSessions: localSessions(context.engine) })
    : context.db.collection(name).aggregate(pipeline, options)
  const ns = `${context.dbName}.${name}`
  if (!endsWithOutput(pipeline)) return firstBatch(context, ns, cursor, command)
  await cursor.toArray()
  return { cursor: { firstBatch: [], id: Long.ZERO, ns }, ok: 1 }
}

export const AGGREGATE_COMMANDS: Record<string, CommandHandler> = { aggregate }

/**
 * Whether the pipeline ends in `$out` or `$merge`: then the engine's cursor writes on its first read
 * and yields nothing, so the command reads it whole before answering (whatever the batch size).
 */
function endsWithOutput(pipeline: Document[]): boolean {
  const last = pipeline.at(-1)
  return typeof last === 'object' && last !== null && (Object.hasOwn(last, '$out') || Object.hasOwn(last, '$merge'))
}

function isChangeStream(pipeline: Document[]): boolean {
  const first = pipeline[0]
  return typeof first === 'object' && first !== null && Object.hasOwn(first, '$changeStream')
}
