/**
 * The change feed's server for bench/events.ts: one router of items (`name`, `n`, and `at`, the time
 * the writer sent the item, so that a subscriber in another process measures the delay from the write
 * to its event) on the embedded engine, on disk in BENCH_DATA_DIR (in memory with BENCH_EVENTS_MEMORY=1),
 * with room for BENCH_EVENTS_MAX_STREAMS subscribers (default 20,000).
 * Prints `LISTENING <url>` once ready.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'

const inMemory = process.env['BENCH_EVENTS_MEMORY'] === '1'
const db = await openEmbedded(inMemory ? {} : { path: process.env['BENCH_DATA_DIR'] ?? mkdtempSync(join(tmpdir(), 'fmc-bench-events-')) })
const Item = MongoModel('Item', { name: Type.String(), n: Type.Integer(), at: Type.Number() })
const app = await createApp({ title: 'events', version: '1', fastify: { logger: false } })
await app.register(CRUDRouter, { model: Item, db, collectionName: 'items', prefix: '/items', maxStreams: Number(process.env['BENCH_EVENTS_MAX_STREAMS'] ?? 20_000) })
const url = await app.listen({ port: 0, host: '127.0.0.1' })
// SIGTERM closes the server first (the feeds end), then the engine, so that a profile (--cpu-prof) is written.
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0))
})
console.log(`LISTENING ${url}`)
