import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { MongoClient } from 'mongodb'
import { type Document, type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '../../src/index.ts'

/**
 * Where the numeric-type conformance tests run: the engine's API in memory and on disk, the official
 * driver through the engine's wire server, and a real MongoDB at `MONGODB_URI` when it is set (which
 * checks the tests' expectations themselves). Each answers the same calls with the same options.
 */
export const NUMERIC_TARGETS = ['memory', 'disk', 'wire', ...(process.env['MONGODB_URI'] ? ['mongodb'] : [])] as const

/** The calls the tests make: the driver's names and options, which the engine's collections share. */
export interface NumericCollection {
  insertOne(doc: Document): Promise<unknown>
  findOne(filter: Document, options?: Document): Promise<Document | null>
  find(filter: Document, options?: Document): { toArray(): Promise<Document[]> }
  aggregate(pipeline: Document[], options?: Document): { toArray(): Promise<Document[]> }
  updateOne(filter: Document, update: Document | Document[], options?: Document): Promise<unknown>
  distinct(key: string, filter?: Document, options?: Document): Promise<unknown[]>
}

interface Opened {
  collection(name: string): NumericCollection
  close(): Promise<void>
}

/** Opens `target` before the enclosing describe's tests and closes it after; a getter of its collections. */
export function useNumericTarget(target: string): (name: string) => NumericCollection {
  let opened: Opened | undefined
  before(async () => {
    opened = await open(target)
  })
  after(async () => {
    await opened?.close()
  })
  return (name) => {
    if (!opened) throw new Error('target not open yet')
    return opened.collection(name)
  }
}

async function open(target: string): Promise<Opened> {
  if (target === 'memory') return engine(await openEmbedded())
  if (target === 'disk') {
    const dir = await mkdtemp(join(tmpdir(), 'fmc-numeric-'))
    const opened = engine(await openEmbedded({ path: dir }))
    return { ...opened, close: () => opened.close().finally(() => rm(dir, { recursive: true, force: true })) }
  }
  if (target === 'wire') {
    const db = await openEmbedded()
    const server = await startWireServer(db)
    return driver(server.uri, `numeric`, db, server)
  }
  return driver(process.env['MONGODB_URI']!, `fmc_numeric_${process.pid}`)
}

function engine(db: EmbeddedDb): Opened {
  return { collection: (name) => db.collection(name) as unknown as NumericCollection, close: () => db.close() }
}

async function driver(uri: string, dbName: string, db?: EmbeddedDb, server?: WireServer): Promise<Opened> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 60_000 })
  await client.connect()
  const database = client.db(dbName)
  await database.dropDatabase()
  return {
    collection: (name) => database.collection(name) as unknown as NumericCollection,
    async close() {
      try {
        if (db === undefined) await database.dropDatabase()
        await client.close()
      } finally {
        await server?.close()
        await db?.close()
      }
    },
  }
}
