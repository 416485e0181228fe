import { type CollectionSizes, collectionSizes } from '../../collection/collection-sizes.js'
import { type Document, isNonArrayObject } from '../../document.js'
import { EmbeddedCollection } from '../../embedded-collection.js'
import type { EmbeddedDb } from '../../embedded-db.js'
import { compileFilter } from '../../query/compile-filter.js'
import { allows } from '../auth/authorize.js'
import { grantsOnDatabase } from '../auth/roles.js'
import { badValue, unauthorized, WireError } from '../wire-error.js'
import { type CommandContext, type CommandHandler, collectionName } from './command-context.js'

/**
 * Sizes, as mongod reports them, from a walk of the stored bytes (collection-sizes.ts): `size` and
 * `dataSize` are the documents' BSON bytes, an index's size its entries' bytes. `storageSize` is the
 * same as `size`: LMDB's pages are shared by every collection of the data directory, so no share of
 * them is any one collection's; nothing is compressed, and nothing is free (`freeStorageSize` 0).
 */

/** `collStats` (deprecated by MongoDB for `$collStats`, still answered): a collection's count and sizes. */
const collStats: CommandHandler = async (command, context) => {
  const name = collectionName(command['collStats'], 'collStats')
  return { ...(await storageStats(context, name, scaleOf(command['scale']))), ok: 1 }
}

/**
 * `$collStats` as the first stage of a collection's aggregate (mongosh's `db.coll.stats()` and
 * Compass use it): one document, `{ ns, host, localTime, storageStats?, count? }`, which later stages
 * may reshape. `latencyStats` and `queryExecStats` are refused: the server keeps no such counters.
 */
export async function collStatsStage(spec: unknown, name: string, context: CommandContext): Promise<Document> {
  if (!isNonArrayObject(spec)) throw new WireError(5447000, 'Location5447000', '$collStats must take a nested object')
  const unknown = Object.keys(spec).filter((field) => field !== 'storageStats' && field !== 'count')
  if (unknown.length > 0) throw badValue(`$collStats: ${unknown.join(', ')} is not supported by the embedded engine (it keeps no latency or query statistics)`)
  const out: Document = { ns: `${context.dbName}.${name}`, host: context.server.address, localTime: new Date() }
  if (spec['storageStats'] !== undefined) {
    const options = spec['storageStats']
    out['storageStats'] = await storageStats(context, name, scaleOf(isNonArrayObject(options) ? options['scale'] : undefined))
  }
  if (spec['count'] !== undefined) out['count'] = (await sizesOf(context.db, name)).count
  return out
}

/** `dbStats`: the database's collections, views, documents and sizes. */
const dbStats: CommandHandler = async (command, context) => {
  const scale = scaleOf(command['scale'])
  const { collections, views } = await namesOf(context.db)
  let objects = 0
  let dataSize = 0
  let indexes = 0
  let indexSize = 0
  for (const name of collections) {
    const sizes = await sizesOf(context.db, name)
    objects += sizes.count
    dataSize += sizes.size
    indexes += Object.keys(sizes.indexSizes).length
    indexSize += sum(sizes.indexSizes)
  }
  return {
    db: context.dbName,
    collections: collections.length,
    views: views.length,
    objects,
    avgObjSize: objects === 0 ? 0 : dataSize / objects,
    dataSize: Math.floor(dataSize / scale),
    storageSize: Math.floor(dataSize / scale),
    indexes,
    indexSize: Math.floor(indexSize / scale),
    totalSize: Math.floor((dataSize + indexSize) / scale),
    scaleFactor: scale,
    ok: 1,
  }
}

/**
 * `listDatabases`: every database holding a collection, with its size (documents and index entries,
 * as `dbStats`' `totalSize`); `nameOnly` skips the sizes, `filter` matches on `name`, `sizeOnDisk`
 * and `empty`. With `--auth`, a user without a role that may list every database sees those it has
 * a role on (mongod's `authorizedDatabases`).
 */
const listDatabases: CommandHandler = async (command, context) => {
  const { security } = context.server
  const mayListAll = allows(security, context.peer, { cluster: true, action: 'listDatabases' })
  if (!mayListAll && command['authorizedDatabases'] === false) throw unauthorized('not authorized on admin to execute command { listDatabases: 1 }')
  const user = context.peer.auth.user
  const roles = user === undefined ? [] : (security.users.get(user.db, user.user)?.roles ?? [])
  const names = context.engine
    .listDatabaseNames()
    .filter((name) => mayListAll || grantsOnDatabase(roles, name))
    .sort()
  const filter = isNonArrayObject(command['filter']) ? compileFilter(command['filter']) : undefined
  const nameOnly = command['nameOnly'] === true
  const databases: Document[] = []
  let totalSize = 0
  for (const name of names) {
    const entry: Document = nameOnly ? { name } : { name, sizeOnDisk: await databaseSize(context.engine.db(name)), empty: false }
    if (filter !== undefined && !filter(entry)) continue
    databases.push(entry)
    totalSize += Number(entry['sizeOnDisk'] ?? 0)
  }
  return nameOnly ? { databases, ok: 1 } : { databases, totalSize, totalSizeMb: Math.floor(totalSize / (1024 * 1024)), ok: 1 }
}

async function storageStats(context: CommandContext, name: string, scale: number): Promise<Document> {
  const { views } = await namesOf(context.db)
  const ns = `${context.dbName}.${name}`
  if (views.includes(name)) throw new WireError(166, 'CommandNotSupportedOnView', `Namespace ${ns} is a view, not a collection`)
  const sizes = await sizesOf(context.db, name)
  const indexSize = sum(sizes.indexSizes)
  const scaled = (bytes: number) => Math.floor(bytes / scale)
  return {
    ns,
    size: scaled(sizes.size),
    count: sizes.count,
    avgObjSize: sizes.count === 0 ? 0 : Math.floor(sizes.size / sizes.count),
    numOrphanDocs: 0,
    storageSize: scaled(sizes.size),
    freeStorageSize: 0,
    capped: false,
    nindexes: Object.keys(sizes.indexSizes).length,
    indexBuilds: [],
    totalIndexSize: scaled(indexSize),
    totalSize: scaled(sizes.size + indexSize),
    indexSizes: Object.fromEntries(Object.entries(sizes.indexSizes).map(([index, bytes]) => [index, scaled(bytes)])),
    scaleFactor: scale,
  }
}

async function databaseSize(db: EmbeddedDb): Promise<number> {
  let total = 0
  for (const name of (await namesOf(db)).collections) {
    const sizes = await sizesOf(db, name)
    total += sizes.size + sum(sizes.indexSizes)
  }
  return total
}

function sizesOf(db: EmbeddedDb, name: string): Promise<CollectionSizes> {
  return collectionSizes(EmbeddedCollection.coreOf(db.collection(name)))
}

async function namesOf(db: EmbeddedDb): Promise<{ collections: string[], views: string[] }> {
  const views = (await db.listCollections({ type: 'view' }, { nameOnly: true }).toArray()).map((info) => String(info['name']))
  return { collections: db.listCollectionNames().filter((name) => !views.includes(name)), views }
}

/** `scale`: a positive whole number the sizes are divided by (1024 for KiB), as mongod takes it. */
function scaleOf(value: unknown): number {
  if (value === undefined || value === null) return 1
  const scale = Number(value)
  if (!Number.isFinite(scale) || scale < 1) throw badValue(`Scale factor must be greater than zero, got ${String(value)}`)
  return Math.floor(scale)
}

function sum(sizes: Record<string, number>): number {
  return Object.values(sizes).reduce((a, b) => a + b, 0)
}

export const STATISTICS_COMMANDS: Record<string, CommandHandler> = { collStats, dbStats, listDatabases }
