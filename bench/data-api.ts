/**
 * One page of 20 documents (sorted, filtered) read through the Data API endpoint (`POST .../action/find`)
 * against the same page through the list route (`GET /items?...`), over real HTTP on loopback, on the
 * engine in memory and on disk, 2,000 documents stored. Median of several runs of many requests;
 * compare the ratio. Run alone with `node --import tsx bench/data-api.ts`; prints one markdown table.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, DataAPI, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'

const DOCUMENTS = 2000
const REQUESTS = 300
const RUNS = 7
const KEY = 'bench-data-api-key-0123456789abcdef0123'

const BenchItem = MongoModel('BenchDataItem', { name: Type.String(), qty: Type.Integer(), price: Type.Number(), tags: Type.Array(Type.String()), secret: Type.String() })
const BenchItemOut = MongoModelOut('BenchDataItemOut', { name: Type.String(), qty: Type.Integer(), price: Type.Number(), tags: Type.Array(Type.String()) })

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Milliseconds for REQUESTS reads of the page each way, median of RUNS. */
async function timeWays(db: EmbeddedDb): Promise<Record<'route' | 'dataApi', number>> {
  const app = await createApp({ title: 'bench', version: '1.0.0', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: BenchItem, modelOut: BenchItemOut, db, collectionName: 'bench_data_items', prefix: '/items' })
  await app.register(DataAPI, { keys: [{ name: 'bench', key: KEY }], database: 'bench' })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const docs = Array.from({ length: DOCUMENTS }, (_, i) => ({ name: `item ${String(i).padStart(5, '0')}`, qty: i % 50, price: i / 4, tags: ['a', `t${i % 7}`], secret: 's' }))
  const seeded = await fetch(`${base}/app/data-api/endpoint/data/v1/action/insertMany`, { method: 'POST', headers: { 'content-type': 'application/json', apiKey: KEY }, body: JSON.stringify({ dataSource: 'mongodb-atlas', database: 'bench', collection: 'bench_data_items', documents: docs }) })
  if (seeded.status !== 201) throw new Error(`seeding failed: ${await seeded.text()}`)
  const listUrl = `${base}/items?limit=20&skip=40&sort_by=name&filters=${encodeURIComponent(JSON.stringify({ qty: { $gte: 10 } }))}`
  const findBody = JSON.stringify({ dataSource: 'mongodb-atlas', database: 'bench', collection: 'bench_data_items', filter: { qty: { $gte: 10 } }, sort: { name: 1 }, skip: 40, limit: 20 })
  const ways = {
    route: async () => {
      const res = await fetch(listUrl)
      if (((await res.json()) as unknown[]).length !== 20) throw new Error('the list answered another page')
    },
    dataApi: async () => {
      const res = await fetch(`${base}/app/data-api/endpoint/data/v1/action/find`, { method: 'POST', headers: { 'content-type': 'application/json', apiKey: KEY }, body: findBody })
      if (((await res.json()) as { documents: unknown[] }).documents.length !== 20) throw new Error('find answered another page')
    },
  }
  try {
    const times = { route: [] as number[], dataApi: [] as number[] }
    for (let run = 0; run <= RUNS; run++) {
      for (const way of ['route', 'dataApi'] as const) {
        const start = process.hrtime.bigint()
        for (let i = 0; i < REQUESTS; i++) await ways[way]()
        // The first run warms up every path, and is not counted.
        if (run > 0) times[way].push(Number(process.hrtime.bigint() - start) / 1e6)
      }
    }
    return { route: median(times.route), dataApi: median(times.dataApi) }
  } finally {
    await app.close()
  }
}

export async function benchDataApi(): Promise<void> {
  console.log(`| ${REQUESTS} reads of a page of 20 over HTTP (median of ${RUNS}) | GET <prefix> (list route) | POST .../action/find (Data API) | Data API / list route |`)
  console.log('|---|---|---|---|')
  const dir = await mkdtemp(join(tmpdir(), 'fmc-bench-data-api-'))
  try {
    for (const [name, open] of [['engine, memory', () => openEmbedded()], ['engine, disk', () => openEmbedded({ path: dir })]] as const) {
      const db = await open()
      try {
        const { route, dataApi } = await timeWays(db)
        console.log(`| ${name} | ${route.toFixed(1)} ms | ${dataApi.toFixed(1)} ms | ${(dataApi / route).toFixed(2)}× |`)
      } finally {
        await db.close()
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchDataApi()
