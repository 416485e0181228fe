import { mkdir } from 'node:fs/promises'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { DriverDb } from 'fastify-mongo-crud'
import { MongoClient } from 'mongodb'
import { buildDemo } from './build-demo.js'

/**
 * `npm start`: the demo on the embedded engine, data kept under ./data, or on MongoDB when
 * MONGODB_URI is set (the database named in the URI, or `demo`).
 */
const uri = process.env['MONGODB_URI']
let db: DriverDb
let close: () => Promise<void>
if (uri !== undefined && uri !== '') {
  const client = await new MongoClient(uri).connect()
  db = client.db()
  close = () => client.close()
} else {
  await mkdir('./data', { recursive: true })
  const embedded = await openEmbedded({ path: './data' })
  db = embedded
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
console.log(`Demo API on http://${host}:${port} (${uri ? 'MongoDB' : 'embedded engine, data in ./data'})`)
console.log(`Docs: http://${host}:${port}/docs and http://${host}:${port}/redoc`)
