/**
 * One `POST /users/_batch` of 100 creates (atomic, and not) against 100 `POST /users`, over real HTTP on
 * loopback, on the engine in memory and on disk. Median of several runs; compare the ratios.
 * Run alone with `node --import tsx bench/batch.ts`; prints one markdown table.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'

const OPERATIONS = 100
const RUNS = 7

const BenchUser = MongoModel('BenchBatchUser', { name: Type.String(), email: Type.String(), age: Type.Integer() })
const user = (i: number) => ({ name: `user ${i}`, email: `u${i}@example.com`, age: i % 90 })

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function post(base: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await res.arrayBuffer()
  return res.status
}

/** Milliseconds each way takes to store OPERATIONS documents, median of RUNS. */
async function timeWays(db: EmbeddedDb): Promise<Record<'single' | 'atomic' | 'loose', number>> {
  const app = await createApp({ title: 'bench', version: '1.0.0', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: BenchUser, db, collectionName: 'bench_batch', prefix: '/users', maxBatchOperations: OPERATIONS })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const ways = {
    single: async () => {
      for (let i = 0; i < OPERATIONS; i++) if ((await post(base, '/users', user(i))) !== 201) throw new Error('create failed')
    },
    atomic: async () => {
      if ((await post(base, '/users/_batch', { operations: Array.from({ length: OPERATIONS }, (_, i) => ({ op: 'create', body: user(i) })) })) !== 200) throw new Error('batch failed')
    },
    loose: async () => {
      if ((await post(base, '/users/_batch', { atomic: false, operations: Array.from({ length: OPERATIONS }, (_, i) => ({ op: 'create', body: user(i) })) })) !== 200) throw new Error('batch failed')
    },
  }
  try {
    const times = { single: [] as number[], atomic: [] as number[], loose: [] as number[] }
    for (let run = 0; run <= RUNS; run++) {
      for (const way of ['single', 'atomic', 'loose'] as const) {
        const start = process.hrtime.bigint()
        await ways[way]()
        // The first run warms up every path, and is not counted.
        if (run > 0) times[way].push(Number(process.hrtime.bigint() - start) / 1e6)
      }
    }
    return { single: median(times.single), atomic: median(times.atomic), loose: median(times.loose) }
  } finally {
    await app.close()
  }
}

export async function benchBatch(): Promise<void> {
  console.log(`| ${OPERATIONS} creates over HTTP (median of ${RUNS}) | ${OPERATIONS} × POST | one atomic _batch | one _batch, atomic: false | atomic batch speed-up |`)
  console.log('|---|---|---|---|---|')
  const dir = await mkdtemp(join(tmpdir(), 'fmc-bench-batch-'))
  try {
    for (const [name, open] of [['engine, memory', () => openEmbedded()], ['engine, disk', () => openEmbedded({ path: dir })]] as const) {
      const db = await open()
      try {
        const { single, atomic, loose } = await timeWays(db)
        console.log(`| ${name} | ${single.toFixed(1)} ms | ${atomic.toFixed(1)} ms | ${loose.toFixed(1)} ms | ${(single / atomic).toFixed(1)}× |`)
      } finally {
        await db.close()
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchBatch()
