/**
 * Ours: the users router of the benchmark, from the built packages.
 * BENCH_MODE=disk (b): the embedded engine, durable, in BENCH_DATA_DIR (default: a fresh directory).
 * BENCH_MODE=wire (c): the official driver against the engine's wire server at BENCH_WIRE_URI,
 * database BENCH_DB.
 * `POST /__bench/index` creates the index on `age` through the collection API.
 * Prints `LISTENING <url>` once ready.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, type DriverDb, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { MongoClient } from 'mongodb'

const mode = process.env['BENCH_MODE'] ?? 'disk'
let db: DriverDb
if (mode === 'wire') {
  const client = new MongoClient(process.env['BENCH_WIRE_URI']!, { maxPoolSize: 50 })
  await client.connect()
  db = client.db(process.env['BENCH_DB'] ?? 'ours') as unknown as DriverDb
} else {
  // In the benchmark's own directory (removed when it ends), or a fresh one when run alone.
  db = await openEmbedded({ path: process.env['BENCH_DATA_DIR'] ?? mkdtempSync(join(tmpdir(), 'fmc-bench-disk-')) })
}

const fields = { name: Type.String(), email: Type.String(), age: Type.Integer(), city: Type.String(), created_at: Type.String() }
const User = MongoModel('User', fields)
const UserOut = MongoModelOut('UserOut', fields)

const app = await createApp({ title: 'bench', version: '1.0.0' })
await app.register(CRUDRouter, { model: User, modelOut: UserOut, db, collectionName: 'users', prefix: '/users' })
app.post('/__bench/index', async () => ({ indexed: await db.collection('users').createIndex({ age: 1 }) }))

const url = await app.listen({ port: 0, host: '127.0.0.1' })
console.log(`LISTENING ${url}`)
