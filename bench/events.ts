/**
 * Change feed (`GET /items/_events`, docs/events.md) on the embedded engine on disk: the delay from an
 * acknowledged write (its POST answered) to its event at each subscriber, with 1, 100 and 1,000
 * subscribers over real HTTP (median and p99 over every write and subscriber); then the write
 * throughput of concurrent POSTs with no subscriber, with 100 and with 1,000.
 * Run: node --import tsx bench/events.ts  (part of `npm run bench`; BENCH_EVENTS_WRITES, BENCH_EVENTS_MEMORY=1 for the engine in memory)
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'

const Item = MongoModel('Item', { name: Type.String(), n: Type.Integer() })
const WRITES = Number(process.env['BENCH_EVENTS_WRITES'] ?? 200)
const THROUGHPUT_WRITES = 2000
const CONCURRENT_WRITERS = 16

type App = Awaited<ReturnType<typeof createApp>>

/** A subscriber: records when each document's event arrived. */
interface Subscriber {
  seen: Map<string, number>
  close(): void
}

function subscribe(port: number, onEvent: () => void): Promise<Subscriber> {
  const seen = new Map<string, number>()
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/items/_events', headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`subscribe: ${response.statusCode}`))
      response.setEncoding('utf8')
      let buffer = ''
      response.on('data', (chunk: string) => {
        const at = performance.now()
        buffer += chunk
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, cut))?.[1]
          buffer = buffer.slice(cut + 2)
          if (data === undefined) continue
          seen.set((JSON.parse(data) as { id: string }).id, at)
          onEvent()
        }
      })
      resolve({ seen, close: () => req.destroy() })
    })
    req.on('error', reject)
    req.end()
  })
}

async function post(app: App, n: number): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/items', payload: { name: `item ${n}`, n } })
  if (res.statusCode !== 201) throw new Error(`POST: ${res.statusCode} ${res.body}`)
  return (res.json() as { id: string }).id
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** One write at a time; the next once every subscriber has its event. Delays in ms. */
async function latency(app: App, port: number, count: number): Promise<{ median: number, p99: number }> {
  let expected = 0
  let received = 0
  let wake = () => {}
  const subscribers = await Promise.all(
    Array.from({ length: count }, () =>
      subscribe(port, () => {
        received++
        if (received >= expected) wake()
      })
    )
  )
  const delays: number[] = []
  try {
    for (let i = 0; i < WRITES; i++) {
      expected = received + count
      const all = new Promise<void>((resolve) => {
        wake = resolve
      })
      const id = await post(app, i)
      const acked = performance.now()
      if (received < expected) await all
      for (const subscriber of subscribers) delays.push(Math.max(0, subscriber.seen.get(id)! - acked))
    }
  } finally {
    for (const subscriber of subscribers) subscriber.close()
  }
  delays.sort((a, b) => a - b)
  return { median: percentile(delays, 0.5), p99: percentile(delays, 0.99) }
}

/** Writes per second of CONCURRENT_WRITERS writers posting THROUGHPUT_WRITES documents, with `count` subscribers reading. */
async function throughput(app: App, port: number, count: number): Promise<number> {
  const subscribers = await Promise.all(Array.from({ length: count }, () => subscribe(port, () => {})))
  try {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CONCURRENT_WRITERS }, async () => {
        while (next < THROUGHPUT_WRITES) await post(app, next++)
      })
    )
    return THROUGHPUT_WRITES / ((performance.now() - started) / 1000)
  } finally {
    for (const subscriber of subscribers) subscriber.close()
  }
}

async function main(): Promise<void> {
  const inMemory = process.env['BENCH_EVENTS_MEMORY'] === '1'
  const dir = inMemory ? undefined : await mkdtemp(join(tmpdir(), 'bench-events-'))
  const db = await openEmbedded(dir === undefined ? {} : { path: dir })
  const app = await createApp({ title: 'events', version: '1', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: Item, db, collectionName: 'items', prefix: '/items', maxStreams: 2000 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  try {
    console.log(`events: embedded engine ${inMemory ? 'in memory' : 'on disk'}, ${WRITES} writes one at a time`)
    for (const count of [1, 100, 1000]) {
      const { median, p99 } = await latency(app, port, count)
      console.log(`${String(count).padStart(5)} subscribers: write acknowledged -> event median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`)
    }
    for (const count of [0, 100, 1000]) {
      const rate = await throughput(app, port, count)
      console.log(`${String(count).padStart(5)} subscribers: ${rate.toFixed(0)} writes/s (${CONCURRENT_WRITERS} concurrent writers, ${THROUGHPUT_WRITES} writes)`)
    }
  } finally {
    await app.close()
    await db.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  }
}

await main()
