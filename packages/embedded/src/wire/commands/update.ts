import type { Document, EmbeddedCollection } from '../../index.js'
import { asLetDocument, resolveConstants, resolveLet, type Variables } from '../../let-variables.js'
import { checkPipelineUpdate } from '../../pipeline-update.js'
import { failedToParse } from '../wire-error.js'
import { type CommandHandler, optionalArray, optionalCount, optionalDocument, refuseOptions, requiredArray, targetCollection } from './command-context.js'
import { runStatements, writeReply } from './write-result.js'

/**
 * update: `{ q, u, upsert, multi, arrayFilters }` statements. `u` is an update document, an update
 * pipeline (an array of stages) or a replacement. The command's `let` is evaluated once, here, and
 * every statement reads the same values.
 */
const update: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'update', context)
  const variables = resolveLet(command['let'], 'update')
  let n = 0
  let nModified = 0
  const upserted: Document[] = []
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const writeErrors = await runStatements(requiredArray(command, 'updates'), command['ordered'] !== false, async (statement, index) => {
    const result = await runUpdate(collection, statement, maxTimeMS, variables)
    n += result.matchedCount
    nModified += result.modifiedCount
    if (result.upsertedId !== undefined) {
      n++
      upserted.push({ index, _id: result.upsertedId })
    }
  })
  return writeReply(upserted.length > 0 ? { n, nModified, upserted } : { n, nModified }, writeErrors)
}

/** One statement; its constants (`c`, for a pipeline) join the command's variables, and win over them. */
function runUpdate(collection: EmbeddedCollection, statement: Document, maxTimeMS: number | undefined, commandVariables: Variables | undefined) {
  refuseOptions(statement, ['collation', 'sort'])
  const filter = optionalDocument(statement, 'q') ?? {}
  const change = statement['u']
  if (typeof change !== 'object' || change === null) throw failedToParse("'u' must be an update document, an update pipeline or a replacement")
  const constants = resolveConstants(statement['c'], Array.isArray(change))
  const variables = constants === undefined ? commandVariables : { ...commandVariables, ...constants }
  const options = { upsert: statement['upsert'] === true, arrayFilters: optionalArray(statement, 'arrayFilters'), ...(maxTimeMS ? { maxTimeMS } : {}), ...(variables ? { let: asLetDocument(variables) } : {}) }
  // The server's checks of the stages come first: the engine's methods would first make the driver's
  // (a pipeline without an operator stage is a client-side error there, 40324 here).
  if (Array.isArray(change)) {
    checkPipelineUpdate(change)
    return statement['multi'] === true ? collection.updateMany(filter, change, options) : collection.updateOne(filter, change, options)
  }
  const operators = Object.keys(change).some((key) => key.startsWith('$'))
  if (!operators) {
    if (statement['multi'] === true) throw failedToParse('multi update is not supported for replacement-style update')
    return collection.replaceOne(filter, change as Document, options)
  }
  return statement['multi'] === true ? collection.updateMany(filter, change as Document, options) : collection.updateOne(filter, change as Document, options)
}

export const UPDATE_COMMANDS: Record<string, CommandHandler> = { update }
