import { AS_HELD } from '../../bson/value-form.js'
import type { Document } from '../../document.js'
import type { FindOneAndOptions, ModifyResult } from '../../embedded-collection.js'
import { failedToParse } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandHandler, optionalArray, optionalCount, optionalDocument, targetCollection } from './command-context.js'

/**
 * findAndModify: update, replace or (`remove: true`) delete the first match in `sort` order,
 * answering the document before the change, or after it with `new: true`: the engine's
 * findOneAndUpdate / findOneAndReplace / findOneAndDelete with `includeResultMetadata`.
 */
const findAndModify: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'findAndModify', context)
  const remove = command['remove'] === true
  const change = command['update']
  if (remove && change !== undefined) throw failedToParse('Cannot specify both an update and remove=true')
  if (remove && command['upsert'] === true) throw failedToParse('Cannot specify both upsert=true and remove=true')
  if (!remove && (typeof change !== 'object' || change === null)) throw failedToParse('Either an update or remove=true must be specified')
  const filter = optionalDocument(command, 'query') ?? {}
  const options = {
    // A client's sort document as sent: the engine refuses orders other than 1 and -1 (BadValue).
    sort: optionalDocument(command, 'sort') as FindOneAndOptions['sort'],
    projection: optionalDocument(command, 'fields'),
    maxTimeMS: optionalCount(command, 'maxTimeMS'),
    collation: optionalCollation(command),
    includeResultMetadata: true,
    // Checked (a document of valid names) and evaluated by the engine.
    let: command['let'] as Document | undefined,
    // The document as the engine holds it, each numeric type kept (value-form.ts).
    [AS_HELD]: true,
  } as const
  let result: ModifyResult
  if (remove) result = await collection.findOneAndDelete(filter, options)
  else {
    const update = change as Document
    const modify = { ...options, returnDocument: command['new'] === true ? 'after' : 'before', upsert: command['upsert'] === true, arrayFilters: optionalArray(command, 'arrayFilters') } as const
    const operators = Array.isArray(update) || Object.keys(update).some((key) => key.startsWith('$'))
    result = operators ? await collection.findOneAndUpdate(filter, update, modify) : await collection.findOneAndReplace(filter, update, modify)
  }
  return { lastErrorObject: result.lastErrorObject, value: result.value, ok: 1 }
}

export const FIND_AND_MODIFY_COMMANDS: Record<string, CommandHandler> = { findAndModify, findandmodify: findAndModify }
