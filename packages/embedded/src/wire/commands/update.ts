import type { Document, EmbeddedCollection } from '../../index.js'
import { badValue, failedToParse } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, optionalArray, optionalCount, optionalDocument, refuseOptions, requiredArray, targetCollection } from './command-context.js'
import { runStatements, writeReply } from './write-result.js'

/**
 * update: `{ q, u, upsert, multi, arrayFilters }` statements. `u` is an update document or a
 * replacement; pipeline updates (`u` an array) are refused.
 */
const update: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'update', context)
  // The engine has no variables in filters yet: refused, rather than failing later on an undefined `$$name`.
  refuseOptions(command, ['let'])
  let n = 0
  let nModified = 0
  const upserted: Document[] = []
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const writeErrors = await runStatements(requiredArray(command, 'updates'), command['ordered'] !== false, async (statement, index) => {
    const result = await runUpdate(collection, statement, maxTimeMS)
    n += result.matchedCount
    nModified += result.modifiedCount
    if (result.upsertedId !== undefined) {
      n++
      upserted.push({ index, _id: result.upsertedId })
    }
  })
  return writeReply(upserted.length > 0 ? { n, nModified, upserted } : { n, nModified }, writeErrors)
}

function runUpdate(collection: EmbeddedCollection, statement: Document, maxTimeMS: number | undefined) {
  refuseOptions(statement, ['c', 'sort'])
  const filter = optionalDocument(statement, 'q') ?? {}
  const change = statement['u']
  if (Array.isArray(change)) throw badValue('pipeline-style updates are not supported by the embedded engine')
  if (typeof change !== 'object' || change === null) throw failedToParse("'u' must be an update document or a replacement")
  const options = { upsert: statement['upsert'] === true, arrayFilters: optionalArray(statement, 'arrayFilters'), collation: optionalCollation(statement), ...(maxTimeMS ? { maxTimeMS } : {}) }
  const operators = Object.keys(change).some((key) => key.startsWith('$'))
  if (!operators) {
    if (statement['multi'] === true) throw failedToParse('multi update is not supported for replacement-style update')
    return collection.replaceOne(filter, change as Document, options)
  }
  return statement['multi'] === true ? collection.updateMany(filter, change as Document, options) : collection.updateOne(filter, change as Document, options)
}

export const UPDATE_COMMANDS: Record<string, CommandHandler> = { update }
