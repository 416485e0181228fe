/**
 * Deep pages: page 1 against page 400 of 10,000 documents (25 a page), by `skip` and by the `Link`
 * cursor, sorted by an indexed field and by id, on the embedded engine and through the driver and the
 * wire server, the engine on disk. Medians of interleaved rounds; compare the ratios, not the milliseconds.
 * Run: node --import tsx bench/deep-page.ts  (part of `npm run bench`)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, type DriverDb, MongoModel, Type } from 'fastify-mongo-crud'
import { MongoClient } from 'mongodb'

const Item = MongoModel('Item', { name: Type.String(), n: Type.Integer() })
const DOCS = Number(process.env['BENCH_DEEP_DOCS'] ?? 10_000)
const PAGE = 25
const DEEP = DOCS / PAGE
const ROUNDS = Number(process.env['BENCH_DEEP_ROUNDS'] ?? 15)

type App = Awaited<ReturnType<typeof createApp>>

async function seed(db: DriverDb): Promise<void> {
  const items = db.collection('items')
  // Inserted in a shuffled order of `n`, so the sort does real work.
  for (let i = 0; i < DOCS; i++) await items.insertOne({ name: `item ${i}`, n: (i * 7919) % DOCS })
}

async function get(app: App, url: string): Promise<{ ms: number, link: string | undefined, count: number }> {
  const started = performance.now()
  const res = await app.inject({ method: 'GET', url })
  const ms = performance.now() - started
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
  const link = /^<([^>]+)>/.exec(String(res.headers.link ?? ''))?.[1]
  return { ms, link, count: (res.json() as unknown[]).length }
}

/** The URL of the deep page by cursor: the first page's Link followed DEEP - 1 times. */
async function deepCursorUrl(app: App, first: string): Promise<string> {
  let url = first
  for (let page = 1; page < DEEP; page++) {
    const { link } = await get(app, url)
    if (link === undefined) throw new Error(`no Link after page ${page}`)
    url = link
  }
  return url
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function measure(label: string, db: DriverDb): Promise<void> {
  await seed(db)
  const app = await createApp({ title: 'deep', version: '1', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: Item, db, collectionName: 'items', prefix: '/items', indexes: [{ key: { n: 1, _id: 1 } }], sortable: ['n', 'id'] })
  await app.ready()
  try {
    for (const sort of ['n', 'id']) {
      const first = `/items?sort_by=${sort}&limit=${PAGE}`
      // The list sorts { n: 1, _id: 1 } (the _id tie-break): the index that serves it is { n: 1, _id: 1 }.
      const urls = { first, skip: `${first}&skip=${(DEEP - 1) * PAGE}`, cursor: await deepCursorUrl(app, first) }
      const times: Record<keyof typeof urls, number[]> = { first: [], skip: [], cursor: [] }
      for (const key of Object.keys(urls) as Array<keyof typeof urls>) await get(app, urls[key]) // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const key of Object.keys(urls) as Array<keyof typeof urls>) {
          const { ms, count } = await get(app, urls[key])
          if (count !== PAGE) throw new Error(`${key}: ${count} documents`)
          times[key].push(ms)
        }
      }
      const [p1, skip, cursor] = [median(times.first), median(times.skip), median(times.cursor)]
      console.log(
        `${label.padEnd(12)} sort_by=${sort.padEnd(3)} page 1 ${p1.toFixed(2)} ms | page ${DEEP} by skip ${skip.toFixed(2)} ms (${(skip / p1).toFixed(2)}x page 1)` +
          ` | page ${DEEP} by cursor ${cursor.toFixed(2)} ms (${(cursor / p1).toFixed(2)}x page 1)`,
      )
    }
  } finally {
    await app.close()
  }
}

console.log(`Deep pages: ${DOCS} documents, ${PAGE} a page, median of ${ROUNDS} interleaved rounds (ratio to page 1; 1.00x = a deep page costs what the first does)`)
// On disk, as the engine is meant to run (its in-memory backend has no key order: a sort on _id scans there).
const dirs = [mkdtempSync(join(tmpdir(), 'fmc-deep-')), mkdtempSync(join(tmpdir(), 'fmc-deep-wire-'))]
const engine = await openEmbedded({ path: dirs[0]! })
await measure('engine', engine)
await engine.close()
const wireEngine = await openEmbedded({ path: dirs[1]! })
const server = await startWireServer(wireEngine)
const client = new MongoClient(server.uri)
await client.connect()
try {
  await measure('driver+wire', client.db('bench'))
} finally {
  await client.close()
  await server.close()
  await wireEngine.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}
