import { AS_HELD } from '../../bson/value-form.js'
import { typeMismatch } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, optionalCount, optionalDocument, targetCollection } from './command-context.js'

/** distinct: the engine's `collection.distinct(key, query)` (array elements one by one, in BSON order, values equal under the collation once). */
const distinct: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'distinct', context)
  const key = command['key']
  if (typeof key !== 'string' || key === '') throw typeMismatch("'key' must be a non-empty string")
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  // Values as the engine holds them, each numeric type kept (value-form.ts).
  const options = { collation: optionalCollation(command), ...(maxTimeMS ? { maxTimeMS } : {}), [AS_HELD]: true as const }
  return { values: await collection.distinct(key, optionalDocument(command, 'query') ?? {}, options), ok: 1 }
}

export const DISTINCT_COMMANDS: Record<string, CommandHandler> = { distinct }
