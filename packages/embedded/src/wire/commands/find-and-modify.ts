import { toSortSpec } from '../../aggregate-documents.js'
import type { Document } from '../../document.js'
import { compileProjection } from '../../read-documents.js'
import { badValue, failedToParse } from '../wire-error.js'
import { type CommandHandler, optionalArray, optionalCount, optionalDocument, refuseOptions, targetCollection } from './command-context.js'

/**
 * findAndModify: update, replace or (`remove: true`) delete the first match in `sort` order,
 * answering the document before the change, or after it with `new: true`.
 */
const findAndModify: CommandHandler = async (command, context) => {
  refuseOptions(command, ['collation', 'let'])
  const collection = targetCollection(command, 'findAndModify', context)
  const remove = command['remove'] === true
  const change = command['update']
  if (remove && change !== undefined) throw failedToParse('Cannot specify both an update and remove=true')
  if (remove && command['upsert'] === true) throw failedToParse('Cannot specify both upsert=true and remove=true')
  if (!remove && (typeof change !== 'object' || change === null)) throw failedToParse('Either an update or remove=true must be specified')
  if (Array.isArray(change)) throw badValue('pipeline-style updates are not supported by the embedded engine')
  const sortSpec = optionalDocument(command, 'sort')
  const result = await collection.findAndModify(optionalDocument(command, 'query') ?? {}, remove ? null : (change as Document), {
    sort: sortSpec && Object.keys(sortSpec).length > 0 ? toSortSpec(sortSpec) : undefined,
    returnNew: command['new'] === true,
    upsert: command['upsert'] === true,
    arrayFilters: optionalArray(command, 'arrayFilters'),
    maxTimeMS: optionalCount(command, 'maxTimeMS'),
  })
  const project = compileProjection(optionalDocument(command, 'fields'))
  const lastErrorObject: Document = { n: result.n, updatedExisting: result.updatedExisting }
  if (result.upsertedId !== undefined) lastErrorObject['upserted'] = result.upsertedId
  return { lastErrorObject, value: result.value === null ? null : project(result.value), ok: 1 }
}

export const FIND_AND_MODIFY_COMMANDS: Record<string, CommandHandler> = { findAndModify, findandmodify: findAndModify }
