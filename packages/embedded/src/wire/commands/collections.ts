import type { Document } from '../../document.js'
import { badValue, WireError } from '../wire-error.js'
import { type CommandHandler, collectionName, optionalDocument } from './command-context.js'
import { firstBatch } from './find.js'

const listCollections: CommandHandler = async (command, context) => {
  const cursor = context.db.listCollections(optionalDocument(command, 'filter') ?? {}, { nameOnly: command['nameOnly'] === true })
  return firstBatch(context, `${context.dbName}.$cmd.listCollections`, cursor, command)
}

/** Options of `create` the engine honours (`viewOn` and `pipeline` make a view); capped collections, validators... are refused. */
const CREATE_OPTIONS = new Set(['create', 'viewOn', 'pipeline', '$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern', 'readConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'txnNumber', 'autocommit', 'startTransaction', 'maxTimeMS'])

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

/** Fields any command may carry (the session, the cluster time, the API version...): not options of the command itself. */
const GENERIC_FIELDS = new Set(['$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'maxTimeMS', 'txnNumber', 'autocommit', 'readConcern'])

/** `collMod`: `changeStreamPreAndPostImages`, or nothing (a `modify` for change streams); other options are refused (EmbeddedDb.modifyCollection). */
const collMod: CommandHandler = async (command, context) => {
  const name = collectionName(command['collMod'], 'collMod')
  const options = Object.fromEntries(Object.entries(command).filter(([key]) => key !== 'collMod' && !GENERIC_FIELDS.has(key)))
  await context.db.modifyCollection(name, options)
  return { ok: 1 }
}

/**
 * `renameCollection` (admin database, full namespaces, as mongod: the driver's `collection.rename()`):
 * within one database; `dropTarget` drops an existing target first.
 */
const renameCollection: CommandHandler = async (command, context) => {
  if (context.dbName !== 'admin') throw new WireError(13, 'Unauthorized', 'renameCollection may only be run against the admin database.')
  const [fromDb, from] = splitNamespace(command['renameCollection'], 'renameCollection')
  const [toDb, to] = splitNamespace(command['to'], 'to')
  if (fromDb !== toDb) throw badValue(`renaming a collection to another database (${fromDb} to ${toDb}) is not supported by the embedded engine`)
  await context.engine.db(fromDb).renameCollection(from, to, { dropTarget: command['dropTarget'] === true })
  return { ok: 1 }
}

function splitNamespace(value: unknown, field: string): [string, string] {
  const namespace = collectionName(value, field)
  const cut = namespace.indexOf('.')
  if (cut <= 0 || cut === namespace.length - 1) throw new WireError(73, 'InvalidNamespace', `Invalid namespace specified '${namespace}'`)
  return [namespace.slice(0, cut), namespace.slice(cut + 1)]
}

export const COLLECTION_COMMANDS: Record<string, CommandHandler> = { listCollections, create, drop, dropDatabase, collMod, renameCollection }
