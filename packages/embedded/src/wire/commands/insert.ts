import { type Document, isNonArrayObject } from '../../document.js'
import { badValue } from '../wire-error.js'
import { type CommandHandler, requiredArray, targetCollection } from './command-context.js'
import { runStatements, writeReply } from './write-result.js'

/** insert: each document is one engine insert; failures become writeErrors with their index. */
const insert: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'insert', context)
  const documents = requiredArray(command, 'documents')
  let n = 0
  const writeErrors = await runStatements(documents, command['ordered'] !== false, async (doc: Document) => {
    if (!isNonArrayObject(doc)) throw badValue('each inserted document must be an object')
    // The server's rule: only a missing _id is generated; an explicit null is stored.
    await collection.insertOne(doc, { forceServerObjectId: true })
    n++
  })
  return writeReply({ n }, writeErrors)
}

export const INSERT_COMMANDS: Record<string, CommandHandler> = { insert }
