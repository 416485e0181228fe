import { badValue, WireError } from '../wire-error.js'
import { type CommandHandler, collectionName, optionalDocument } from './command-context.js'
import { firstBatch } from './find.js'

const listCollections: CommandHandler = async (command, context) => {
  const cursor = context.db.listCollections(optionalDocument(command, 'filter') ?? {}, { nameOnly: command['nameOnly'] === true })
  return firstBatch(context, `${context.dbName}.$cmd.listCollections`, cursor, command)
}

/** Options of `create` the engine honours; capped collections, validators, views... are refused. */
const CREATE_OPTIONS = new Set(['create', '$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])

const create: CommandHandler = async (command, context) => {
  const name = collectionName(command['create'], 'create')
  const unsupported = Object.keys(command).filter((key) => !CREATE_OPTIONS.has(key))
  if (unsupported.length > 0) throw badValue(`collection option(s) ${unsupported.join(', ')} not supported by the embedded engine`)
  if (context.db.listCollectionNames().includes(name)) throw new WireError(48, 'NamespaceExists', `Collection ${context.dbName}.${name} already exists.`)
  await context.db.createCollection(name)
  return { ok: 1 }
}

const drop: CommandHandler = async (command, context) => {
  const name = collectionName(command['drop'], 'drop')
  const indexes = context.db.collection(name).listIndexes().length
  await context.db.dropCollection(name)
  return { nIndexesWas: indexes, ns: `${context.dbName}.${name}`, ok: 1 }
}

const dropDatabase: CommandHandler = async (_command, context) => {
  await context.db.dropDatabase()
  return { dropped: context.dbName, ok: 1 }
}

const listDatabases: CommandHandler = (command, context) => {
  const names = context.engine.listDatabaseNames().sort()
  const databases = command['nameOnly'] === true ? names.map((name) => ({ name })) : names.map((name) => ({ name, sizeOnDisk: 0, empty: false }))
  return { databases, totalSize: 0, totalSizeMb: 0, ok: 1 }
}

export const COLLECTION_COMMANDS: Record<string, CommandHandler> = { listCollections, create, drop, dropDatabase, listDatabases }
