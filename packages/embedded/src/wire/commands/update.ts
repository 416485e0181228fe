import { type Document, isPlainObject } from '../../document.js'
import type { EmbeddedCollection } from '../../embedded-collection.js'
import { badValue, failedToParse, WireError } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, optionalArray, optionalCount, optionalDocument, refuseOptions, requiredArray, targetCollection } from './command-context.js'
import { refuseStatementSort } from './refuse-statement-sort.js'
import { runStatements, writeReply } from './write-result.js'

/**
 * update: `{ q, u, upsert, multi, arrayFilters, c }` statements. `u` is an update document, an
 * update pipeline (an array of stages) or a replacement. The command's `let` goes to the engine with
 * each statement, which checks and evaluates it (so a bad `let` is each statement's write error).
 */
const update: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'update', context)
  let n = 0
  let nModified = 0
  const upserted: Document[] = []
  refuseStatementSort(command)
  const maxTimeMS = optionalCount(command, 'maxTimeMS')
  const writeErrors = await runStatements(requiredArray(command, 'updates'), command['ordered'] !== false, async (statement, index) => {
    const result = await runUpdate(collection, statement, maxTimeMS, command['let'])
    n += result.matchedCount
    nModified += result.modifiedCount
    if (result.upsertedId !== undefined) {
      n++
      upserted.push({ index, _id: result.upsertedId })
    }
  })
  return writeReply(upserted.length > 0 ? { n, nModified, upserted } : { n, nModified }, writeErrors)
}

/** One statement; its constants (`c`, for a pipeline) join the command's `let`, and win over it. */
function runUpdate(collection: EmbeddedCollection, statement: Document, maxTimeMS: number | undefined, commandLet: unknown) {
  refuseOptions(statement, ['sort'])
  const filter = optionalDocument(statement, 'q') ?? {}
  const change = statement['u']
  if (typeof change !== 'object' || change === null) throw failedToParse("'u' must be an update document, an update pipeline or a replacement")
  const letDocument = withConstants(commandLet, optionalDocument(statement, 'c'), Array.isArray(change))
  const options = { upsert: statement['upsert'] === true, arrayFilters: optionalArray(statement, 'arrayFilters'), collation: optionalCollation(statement), ...(maxTimeMS ? { maxTimeMS } : {}), ...(letDocument == null ? {} : { let: letDocument as Document }) }
  if (Array.isArray(change)) return statement['multi'] === true ? collection.updateMany(filter, change, options) : collection.updateOne(filter, change, options)
  const operators = Object.keys(change).some((key) => key.startsWith('$'))
  if (!operators) {
    if (statement['multi'] === true) throw failedToParse('multi update is not supported for replacement-style update')
    return collection.replaceOne(filter, change as Document, options)
  }
  return statement['multi'] === true ? collection.updateMany(filter, change as Document, options) : collection.updateOne(filter, change as Document, options)
}

/**
 * The `let` a statement runs with: the command's, and the statement's constants (`c`) as `$literal`
 * values over it. Constants are for pipelines only (51198). MongoDB names them by a looser rule than
 * `let` (an uppercase first letter is allowed); the engine checks them as `let`, so it refuses those
 * names clearly here rather than with let's message. A `let` that is not a document goes to the engine
 * as is, to be refused there.
 */
function withConstants(commandLet: unknown, constants: Document | undefined, pipeline: boolean): unknown {
  if (constants === undefined) return commandLet
  if (!pipeline) throw new WireError(51198, 'Location51198', 'Constant values may only be specified for pipeline updates')
  const upper = Object.keys(constants).find((name) => /^[A-Z]/.test(name))
  if (upper !== undefined) throw badValue(`constant '${upper}': the embedded engine does not support constants ('c') whose name starts with an uppercase letter`)
  const isDocument = isPlainObject(commandLet)
  if (commandLet != null && !isDocument) return commandLet
  const literals = Object.fromEntries(Object.entries(constants).map(([name, value]) => [name, { $literal: value }]))
  return { ...(commandLet as Document | undefined), ...literals }
}

export const UPDATE_COMMANDS: Record<string, CommandHandler> = { update }
