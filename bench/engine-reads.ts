/**
 * The engine's reads in process, through its driver-shaped API: on disk (lmdb) against the same
 * engine in memory (a Map of BSON bytes), the baseline, side by side. 10,000 users, an index on
 * `age`; a page is 21 documents (the router's page of 20 and one more). What the ratio shows is
 * what storage adds to a read: reading, copying and walking lmdb, the same decode on both sides.
 * Medians of interleaved rounds, microseconds per read; compare the ratios.
 * Run: node --import tsx bench/engine-reads.ts  (part of `npm run bench`)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { generateUsers } from './gen-users.ts'

const USERS = Number(process.env['BENCH_USERS'] ?? 10_000)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5)
const CALLS = 2_000

async function seeded(db: EmbeddedDb) {
  const users = db.collection('users')
  const ids = []
  for (const user of generateUsers(USERS)) ids.push((await users.insertOne({ ...user })).insertedId)
  await users.createIndex({ age: 1 })
  return { users, ids }
}

type Seeded = Awaited<ReturnType<typeof seeded>>

const READS: [string, (s: Seeded, i: number) => Promise<unknown>][] = [
  ['findOne by _id', (s, i) => s.users.findOne({ _id: s.ids[(i * 7919) % s.ids.length] })],
  ['find, limit 21', (s) => s.users.find({}, { limit: 21 }).toArray()],
  ['find, sort age (indexed), limit 21', (s) => s.users.find({}, { sort: { age: 1, _id: 1 }, limit: 21 }).toArray()],
  ['find age > 50 (indexed), limit 21', (s) => s.users.find({ age: { $gt: 50 } }, { limit: 21 }).toArray()],
]

async function timed(s: Seeded, read: (s: Seeded, i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < CALLS / 10; i++) await read(s, i)
  const started = performance.now()
  for (let i = 0; i < CALLS; i++) await read(s, i)
  return ((performance.now() - started) * 1000) / CALLS
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const dir = mkdtempSync(join(tmpdir(), 'fmc-engine-reads-'))
const disk = await openEmbedded({ path: dir })
const memory = await openEmbedded()
try {
  const sides = { disk: await seeded(disk), memory: await seeded(memory) }
  const results = READS.map(() => ({ disk: [] as number[], memory: [] as number[] }))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, read]] of READS.entries()) {
      results[i]!.disk.push(await timed(sides.disk, read))
      results[i]!.memory.push(await timed(sides.memory, read))
    }
  }
  console.log(`Engine reads in process (${USERS} users, median of ${ROUNDS} rounds of ${CALLS} reads, µs per read)`)
  console.log('| read | on disk | in memory (baseline) | disk / memory |')
  console.log('|---|---:|---:|---:|')
  for (const [i, [title]] of READS.entries()) {
    const onDisk = median(results[i]!.disk)
    const inMemory = median(results[i]!.memory)
    console.log(`| ${title} | ${onDisk.toFixed(1)} | ${inMemory.toFixed(1)} | ${(onDisk / inMemory).toFixed(2)}× |`)
  }
} finally {
  await disk.close()
  await memory.close()
  rmSync(dir, { recursive: true, force: true })
}
