import type { Document } from '../../document.js'
import { failedToParse } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, optionalCount, optionalDocument, requiredArray, targetCollection } from './command-context.js'
import { runStatements, writeReply } from './write-result.js'

/**
 * delete: `{ q, limit }` statements, `limit` 1 (one document) or 0 (every match). The command's
 * `let` goes to the engine with each statement, which checks and evaluates it.
 */
const remove: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'delete', context)
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const options = { ...(maxTimeMS ? { maxTimeMS } : {}), ...(command['let'] == null ? {} : { let: command['let'] as Document }) }
  let n = 0
  const writeErrors = await runStatements(requiredArray(command, 'deletes'), command['ordered'] !== false, async (statement) => {
    const limit = Number(statement['limit'])
    if (limit !== 0 && limit !== 1) throw failedToParse(`The limit field in delete objects must be 0 or 1. Got ${String(statement['limit'])}`)
    const filter = optionalDocument(statement, 'q') ?? {}
    const statementOptions = { ...options, collation: optionalCollation(statement) }
    const { deletedCount } = limit === 1 ? await collection.deleteOne(filter, statementOptions) : await collection.deleteMany(filter, statementOptions)
    n += deletedCount
  })
  return writeReply({ n }, writeErrors)
}

export const DELETE_COMMANDS: Record<string, CommandHandler> = { delete: remove }
