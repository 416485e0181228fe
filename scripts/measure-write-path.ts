/**
 * Measures the engine's write path and index use (not a test: prints numbers, asserts nothing).
 *   node --import tsx scripts/measure-write-path.ts [checkout root, default: this one]
 * - inserts/s with 50 concurrent writers on the durable (lmdb) engine, median of 5 runs;
 * - a sorted page of 20 (`sort: { age: 1 }, limit: 20`) over 10,000 documents with an index on
 *   `age`, median of 50 reads, in ms.
 * Pass another checkout's root to measure it the same way (before/after comparisons).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = resolve(process.argv[2] ?? '.')
const { openEmbedded } = (await import(pathToFileURL(join(root, 'packages/embedded/src/open-embedded.ts')).href)) as typeof import('../packages/embedded/src/open-embedded.ts')

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function withDb<T>(run: (db: Awaited<ReturnType<typeof openEmbedded>>) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-measure-'))
  const db = await openEmbedded({ path: dir })
  try {
    return await run(db)
  } finally {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  }
}

const WRITERS = 50
const PER_WRITER = 40

async function concurrentInserts(): Promise<number> {
  return withDb(async (db) => {
    const coll = db.collection('writes')
    const start = performance.now()
    await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < PER_WRITER; i++) await coll.insertOne({ _id: w * PER_WRITER + i, name: `user ${i}`, age: i % 90 })
    }))
    return (WRITERS * PER_WRITER) / ((performance.now() - start) / 1000)
  })
}

async function sortedPage(): Promise<number> {
  return withDb(async (db) => {
    const coll = db.collection('people')
    await coll.createIndex({ age: 1 })
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => {
        const n = batch * 100 + i
        return coll.insertOne({ _id: n, name: `user ${n}`, email: `u${n}@example.com`, age: (n * 7919) % 100, bio: 'x'.repeat(200) })
      }))
    }
    const times: number[] = []
    for (let i = 0; i < 50; i++) {
      const start = performance.now()
      const page = await coll.find({}, { sort: { age: 1 }, limit: 20 }).toArray()
      times.push(performance.now() - start)
      if (page.length !== 20) throw new Error('short page')
    }
    return median(times)
  })
}

const inserts: number[] = []
for (let rep = 0; rep < 5; rep++) inserts.push(await concurrentInserts())
console.log(`${root}`)
console.log(`50 concurrent writers, ${WRITERS * PER_WRITER} durable inserts: median ${Math.round(median(inserts))} inserts/s (runs: ${inserts.map(Math.round).join(', ')})`)
console.log(`sorted page of 20 over 10,000 documents, index on the sort field: median ${(await sortedPage()).toFixed(2)} ms`)
