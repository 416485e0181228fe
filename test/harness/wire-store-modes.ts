import { randomBytes } from 'node:crypto'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { MongoClient } from 'mongodb'
import type { StoreMode } from '../harness/stores.ts'

/**
 * The engine behind the official driver: a fresh in-memory engine, a wire server on a free
 * loopback port, and a MongoClient connected to it. Tests get `client.db('test')`. `Client` is the
 * driver's class: another major's (test/packaging/mongodb-major) is given here.
 */
export const driverWireWith = (Client: typeof MongoClient): StoreMode => ({
  name: 'driver-wire',
  async open() {
    const engine = await openEmbedded()
    const server = await startWireServer(engine)
    const client = new Client(server.uri, { serverSelectionTimeoutMS: 60_000 })
    try {
      await client.connect()
    } catch (error) {
      await server.close()
      await engine.close()
      throw error
    }
    return {
      db: client.db('test'),
      async close() {
        try {
          await client.close()
        } finally {
          await server.close()
          await engine.close()
        }
      },
    }
  },
})

export const driverWire = driverWireWith(MongoClient)

/** A real MongoDB at `MONGODB_URI`: a fresh database per open, dropped on close. */
export const realMongo: StoreMode = {
  name: 'mongodb',
  async open() {
    const uri = process.env['MONGODB_URI']
    if (!uri) throw new Error('MONGODB_URI is not set')
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 60_000 })
    await client.connect()
    const db = client.db(`fmc_test_${randomBytes(6).toString('hex')}`)
    return {
      db,
      async close() {
        try {
          await db.dropDatabase()
        } finally {
          await client.close()
        }
      },
    }
  },
}

let skipNoticePrinted = false

/** The driver modes to run: driver-wire always, mongodb only when `MONGODB_URI` is set (one line says so otherwise). */
export function driverModes(): StoreMode[] {
  if (process.env['MONGODB_URI']) return [driverWire, realMongo]
  if (!skipNoticePrinted) {
    skipNoticePrinted = true
    console.log('# store mode "mongodb" skipped: MONGODB_URI is not set')
  }
  return [driverWire]
}
