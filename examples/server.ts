import { mkdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { DriverDb } from 'fastify-mongo-crud'
import { MongoClient } from 'mongodb'
import { buildDemo } from './build-demo.js'

/**
 * `npm start`: the demo on the embedded engine, data kept under ./data, or on MongoDB when
 * MONGODB_URI is set (the database named in the URI, else the driver's default, `test`). It prints
 * where its docs and its data are once listening.
 */
const uri = process.env['MONGODB_URI']
let db: DriverDb
let close: () => Promise<void>
/** Where the data is, for the start lines. */
let database: string
if (uri !== undefined && uri !== '') {
  // A request answers 503 within 5 s while the database is out of reach, not after the driver's 30 s (docs/http-contract.md).
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 }).connect()
  const named = client.db()
  db = named
  database = `MongoDB, database ${named.databaseName}`
  close = () => client.close()
} else {
  await mkdir('./data', { recursive: true })
  const embedded = await openEmbedded({ path: './data' })
  db = embedded
  database = `embedded engine, data in ${resolve('./data')}`
  close = () => embedded.close()
}

// Every request is logged (level "info": incoming request, request completed with its status and time).
const app = await buildDemo(db, { logger: { level: 'info' } })
const port = Number(process.env['PORT'] ?? 8000)
const host = process.env['HOST'] ?? '127.0.0.1'
// Handlers first: a signal sent as soon as the address is printed must still close the data cleanly.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(close).then(() => process.exit(0))
  })
}
await app.listen({ port, host })
// The port listened on (PORT=0 picks a free one).
const origin = `http://${host}:${(app.server.address() as AddressInfo).port}`
console.log(`Demo API on ${origin} (${database})`)
console.log(`Docs: ${origin}/docs and ${origin}/redoc. Ctrl-C stops.`)
