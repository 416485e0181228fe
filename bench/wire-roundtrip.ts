/**
 * Round-trip cost of a `findOne` by `_id`: through the official driver over the engine's wire
 * server, versus in-process on the engine. Same process, same data; median of several runs.
 * Run alone with `node --import tsx bench/wire-roundtrip.ts`; prints one markdown table.
 */
import { pathToFileURL } from 'node:url'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import type { DriverCollection } from 'fastify-mongo-crud'
import { MongoClient } from 'mongodb'

const DOCS = 1000
const CALLS = 2000
const RUNS = 7

/** Microseconds per findOne, for each run. */
async function timeFindOne(collection: DriverCollection): Promise<number[]> {
  const runs: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < CALLS; i++) {
      const doc = await collection.findOne({ _id: i % DOCS })
      if (doc === null) throw new Error('missing document')
    }
    runs.push(Number(process.hrtime.bigint() - start) / 1000 / CALLS)
  }
  return runs
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

export async function benchWireRoundTrip(): Promise<{ inProcessUs: number, driverWireUs: number }> {
  const engine = await openEmbedded()
  const server = await startWireServer(engine)
  const client = new MongoClient(server.uri, { maxPoolSize: 1 })
  try {
    const local = engine.collection('bench')
    for (let i = 0; i < DOCS; i++) await local.insertOne({ _id: i, name: `user ${i}`, email: `u${i}@example.com`, age: i % 90 })
    await client.connect()
    const remote = client.db('embedded').collection('bench') as unknown as DriverCollection
    await timeFindOne(local) // warm-up, both paths
    await timeFindOne(remote)
    const inProcessUs = median(await timeFindOne(local))
    const driverWireUs = median(await timeFindOne(remote))
    console.log('| findOne by _id (median of 7 × 2000 calls) | in-process engine | driver → wire server | ratio |')
    console.log('|---|---|---|---|')
    console.log(`| µs per call | ${inProcessUs.toFixed(1)} | ${driverWireUs.toFixed(1)} | ${(driverWireUs / inProcessUs).toFixed(1)}× |`)
    return { inProcessUs, driverWireUs }
  } finally {
    await client.close()
    await server.close()
    await engine.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchWireRoundTrip()
