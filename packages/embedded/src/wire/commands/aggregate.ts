import type { Document } from '../../index.js'
import { badValue } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, collectionName, optionalCount, refuseOptions, requiredArray } from './command-context.js'
import { firstBatch } from './find.js'

/**
 * aggregate on a collection: the engine runs the pipeline (mingo stages, the engine's own
 * BSON-ordered `$sort`) and the result is served through a cursor. Database-level
 * aggregations (`aggregate: 1`) and `explain` are refused.
 */
const aggregate: CommandHandler = async (command, context) => {
  refuseOptions(command, ['explain'])
  if (command['aggregate'] === 1) throw badValue('database-level aggregations ({ aggregate: 1 }) are not supported by the embedded engine')
  const collection = context.db.collection(collectionName(command['aggregate'], 'aggregate'))
  if (typeof command['cursor'] !== 'object' || command['cursor'] === null) {
    throw badValue("The 'cursor' option is required, except for aggregate with the explain argument")
  }
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const options = { collation: optionalCollation(command), ...(maxTimeMS ? { maxTimeMS } : {}), ...(command['let'] != null ? { let: command['let'] as Document } : {}) }
  const cursor = collection.aggregate(requiredArray(command, 'pipeline'), options)
  return firstBatch(context, `${context.dbName}.${collection.collectionName}`, cursor, command)
}

export const AGGREGATE_COMMANDS: Record<string, CommandHandler> = { aggregate }
