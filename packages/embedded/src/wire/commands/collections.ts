import type { Document } from '../../document.js'
import { badValue, WireError } from '../wire-error.js'
import { type CommandHandler, collectionName, optionalDocument } from './command-context.js'
import { firstBatch } from './find.js'

const listCollections: CommandHandler = async (command, context) => {
  const cursor = context.db.listCollections(optionalDocument(command, 'filter') ?? {}, { nameOnly: command['nameOnly'] === true })
  return firstBatch(context, `${context.dbName}.$cmd.listCollections`, cursor, command)
}

/** Options of `create` the engine honours (`viewOn` and `pipeline` make a view); capped collections, validators... are refused. */
const CREATE_OPTIONS = new Set(['create', 'viewOn', 'pipeline', '$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])

const create: CommandHandler = async (command, context) => {
  const name = collectionName(command['create'], 'create')
  const unsupported = Object.keys(command).filter((key) => !CREATE_OPTIONS.has(key))
  if (unsupported.length > 0) throw badValue(`collection option(s) ${unsupported.join(', ')} not supported by the embedded engine`)
  if (context.db.listCollectionNames().includes(name)) throw new WireError(48, 'NamespaceExists', `Collection ${context.dbName}.${name} already exists.`)
  if (command['viewOn'] !== undefined || command['pipeline'] !== undefined) {
    await context.db.createCollection(name, { viewOn: command['viewOn'] as string, pipeline: command['pipeline'] as Document[] })
  } else {
    await context.db.createCollection(name)
  }
  return { ok: 1 }
}

const drop: CommandHandler = async (command, context) => {
  const name = collectionName(command['drop'], 'drop')
  const isView = (await context.db.listCollections({ name, type: 'view' }, { nameOnly: true }).toArray()).length > 0
  const indexes = isView ? 0 : (await context.db.collection(name).listIndexes().toArray()).length
  await context.db.dropCollection(name)
  return { nIndexesWas: indexes, ns: `${context.dbName}.${name}`, ok: 1 }
}

const dropDatabase: CommandHandler = async (_command, context) => {
  // As mongod: `admin` holds the users (and dropping it would drop them behind the server's back).
  if (context.dbName === 'admin') throw new WireError(20, 'IllegalOperation', "Dropping the 'admin' database is prohibited.")
  await context.db.dropDatabase()
  return { dropped: context.dbName, ok: 1 }
}

export const COLLECTION_COMMANDS: Record<string, CommandHandler> = { listCollections, create, drop, dropDatabase }
