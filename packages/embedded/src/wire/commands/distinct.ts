import { typeMismatch } from '../wire-error.js'
import { type CommandHandler, optionalCount, optionalDocument, refuseOptions, targetCollection } from './command-context.js'

/** distinct: the engine's `collection.distinct(key, query)` (array elements one by one, in BSON order). */
const distinct: CommandHandler = async (command, context) => {
  refuseOptions(command, ['collation'])
  const collection = targetCollection(command, 'distinct', context)
  const key = command['key']
  if (typeof key !== 'string' || key === '') throw typeMismatch("'key' must be a non-empty string")
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  return { values: await collection.distinct(key, optionalDocument(command, 'query') ?? {}, maxTimeMS ? { maxTimeMS } : {}), ok: 1 }
}

export const DISTINCT_COMMANDS: Record<string, CommandHandler> = { distinct }
