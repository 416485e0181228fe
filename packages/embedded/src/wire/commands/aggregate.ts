import { Long } from 'mongodb'
import { AS_HELD } from '../../bson/value-form.js'
import { type Document, isNonArrayObject } from '../../document.js'
import { openChangeStream } from '../change-stream-cursors.js'
import { localSessions } from '../session-registry.js'
import { badValue, invalidNamespace } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandContext, type CommandHandler, collectionName, optionalCount, refuseOptions, requiredArray } from './command-context.js'
import { currentOpStage } from './current-op.js'
import { EXPLAIN_COMMANDS } from './explain.js'
import { firstBatch } from './find.js'
import { collStatsStage } from './statistics.js'

/**
 * aggregate on a collection, or on the database (`aggregate: 1`, first stage `$documents` or
 * `$listLocalSessions`): the engine runs the pipeline (mingo stages, the engine's own BSON-ordered
 * `$sort`) and the result is served through a cursor. A pipeline ending in `$out` or `$merge`
 * writes before the reply, which has an empty first batch, as the server's. `explain: true` answers
 * the plan (explain.ts).
 */
const aggregate: CommandHandler = async (command, context) => {
  // The old form of explain (`explain: true` on the command): the explain command's answer, its plan alone.
  if (command['explain'] === true) {
    const { explain: _explain, $db: _db, ...inner } = command
    return EXPLAIN_COMMANDS['explain']!({ explain: inner, verbosity: 'queryPlanner' }, context)
  }
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
    // Results as the engine holds them, each numeric type kept (value-form.ts).
    [AS_HELD]: true as const,
  }
  const pipeline = requiredArray(command, 'pipeline')
  // A change stream (`collection.watch()` of a driver): a cursor whose getMores wait for changes.
  if (isChangeStream(pipeline)) return openChangeStream(command, context, pipeline)
  const databaseLevel = command['aggregate'] === 1
  const name = databaseLevel ? '$cmd.aggregate' : collectionName(command['aggregate'], 'aggregate')
  // `$collStats` and `$currentOp` are the server's to answer: their documents, then the rest of the pipeline on them.
  const served = await serverStage(pipeline[0], databaseLevel ? undefined : name, context)
  const cursor = served
    ? context.db.aggregate([{ $documents: { $literal: served } }, ...pipeline.slice(1)], options)
    : databaseLevel
      ? context.db.aggregate(pipeline, { ...options, localSessions: localSessions(context.engine) })
      : context.db.collection(name).aggregate(pipeline, options)
  const ns = `${context.dbName}.${name}`
  if (!endsWithOutput(pipeline)) return firstBatch(context, ns, cursor, command)
  await cursor.toArray()
  return { cursor: { firstBatch: [], id: Long.ZERO, ns }, ok: 1 }
}

export const AGGREGATE_COMMANDS: Record<string, CommandHandler> = { aggregate }

/**
 * The documents of a first stage that describes the server rather than reads a collection:
 * `$collStats` of the collection aggregated (mongosh's `db.coll.stats()`), `$currentOp` of an
 * `aggregate: 1` on `admin` (mongosh's `db.currentOp()`). Undefined for any other stage.
 */
async function serverStage(first: unknown, collection: string | undefined, context: CommandContext): Promise<Document[] | undefined> {
  if (!isNonArrayObject(first)) return undefined
  if (Object.hasOwn(first, '$collStats')) {
    if (collection === undefined) throw invalidNamespace('$collStats must be run on a collection, not with {aggregate: 1}')
    return [await collStatsStage(first['$collStats'], collection, context)]
  }
  if (Object.hasOwn(first, '$currentOp')) {
    if (collection !== undefined) throw invalidNamespace("$currentOp must be run against the 'admin' database with {aggregate: 1}")
    return currentOpStage(first['$currentOp'], context)
  }
  return undefined
}

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
