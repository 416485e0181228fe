/**
 * What long reads do to everything else the server does: the event-loop delay
 * (`perf_hooks.monitorEventLoopDelay`, 10 ms resolution) and the peak RSS and heap growth of the server
 * process while eight clients at once run one heavy read each, and how long an unrelated `GET /items/{id}`,
 * sent every 50 ms by a process of its own, waits meanwhile.
 *
 * The server (router and wire server over one engine on disk) runs in a child process of its own, a fresh
 * one per workload, so the clients' work is not counted and one workload's memory does not carry into the
 * next. The clients honour 503 + Retry-After (and the wire's 365) by waiting and retrying, as a
 * well-behaved client does; the answers column counts how often they were told to. Workloads, over
 * BENCH_LOOP_DOCS (default 100,000) documents:
 * - `sorted`: `GET /items?sort_by=name`, no limit, on a field without an index (the engine sorts in memory);
 * - `filtered`: `GET /items?filters={"name":"nobody"}`: an unindexed filter that matches nothing (a full scan
 *   before the first document);
 * - `populate`: `GET /posts?limit=1000`, each post referencing 100 items (a populate of 100,000 ids);
 * - `aggregate`: through the driver and the wire server, `[{ $sort: { name: 1 } }]` over the items.
 * Run: node --import tsx bench/event-loop.ts  (part of `npm run bench`); BENCH_LOOP_WORKLOADS=sorted,filtered
 * picks workloads, BENCH_LOOP_TOTAL_SORT_MB sets the engine's totalSortMemoryLimitBytes, BENCH_LOOP_NODE_ARGS
 * adds node flags to the server (--trace-gc), BENCH_LOOP_MEMORY_TRACE=1 logs the server's memory (RSS, heap by space, external) every
 * quarter second. Goal: a p99 delay under 50 ms and an RSS growth under 150 MB.
 * The server CPU seconds beside the wall time show how much of the machine it had (a shared machine is noisy).
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { CRUDPopulate, CRUDRouter, createApp, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { MongoClient, ObjectId } from 'mongodb'
import { generateUsers } from './gen-users.ts'

const DOCS = Number(process.env['BENCH_LOOP_DOCS'] ?? 100_000)
const CLIENTS = Number(process.env['BENCH_LOOP_CLIENTS'] ?? 8)
const POSTS = 1000
const REFS_PER_POST = 100
const PROBE_EVERY_MS = 50
const WORKLOADS = (process.env['BENCH_LOOP_WORKLOADS'] ?? 'sorted,filtered,populate,aggregate').split(',')
/** How many times a client retries a request answered 503 (Retry-After), or an aggregation refused with 365, before giving up. */
const MAX_WAITS = 60

const Item = MongoModel('Item', { name: Type.String(), email: Type.String(), age: Type.Integer(), city: Type.String(), created_at: Type.String() })
const Post = MongoModel('Post', { title: Type.String(), items: Type.Array(ObjectIdField()) })

type ServerMessage = { ready: { http: string, wire: string, itemId: string } } | { stats: Stats }
interface Stats {
  p50: number
  p99: number
  max: number
  rssGrowthMB: number
  heapGrowthMB: number
  /** CPU time the server used meanwhile: against the wall time, it shows how much of the machine the server had. */
  cpuSeconds: number
}

/** The server side: opens the seeded directory, serves HTTP and the wire protocol, measures itself between `start` and `stop`. */
async function serve(dir: string): Promise<void> {
  const total = process.env['BENCH_LOOP_TOTAL_SORT_MB']
  const db = await openEmbedded({ path: dir, ...(total === undefined ? {} : { totalSortMemoryLimitBytes: Number(total) * 2 ** 20 }) })
  const app = await createApp({ title: 'loop', version: '1', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: Item, db, collectionName: 'items', prefix: '/items', sortable: ['name', 'id'], filterable: ['name'] })
  await app.register(CRUDRouter, {
    model: Post,
    db,
    collectionName: 'posts',
    prefix: '/posts',
    populates: [new CRUDPopulate({ field: 'items', collection: 'items', model: Item })],
  })
  const http = await app.listen({ port: 0, host: '127.0.0.1' })
  const wire = await startWireServer(db)
  const first = await db.collection('items').find({}, { limit: 1 }).toArray()
  const send = (message: ServerMessage) => process.send?.(message)
  let delay: ReturnType<typeof monitorEventLoopDelay> | undefined
  let sampler: NodeJS.Timeout | undefined
  let base = { rss: 0, heap: 0 }
  let peak = { rss: 0, heap: 0 }
  let cpu = process.cpuUsage()
  const trace = process.env['BENCH_LOOP_MEMORY_TRACE'] === '1'
  let samples = 0
  process.on('message', async (message: string) => {
    if (message === 'start') {
      global.gc?.()
      const now = process.memoryUsage()
      base = { rss: now.rss, heap: now.heapUsed }
      peak = { ...base }
      sampler = setInterval(() => {
        const sample = process.memoryUsage()
        peak = { rss: Math.max(peak.rss, sample.rss), heap: Math.max(peak.heap, sample.heapUsed) }
        if (trace && ++samples % 25 === 0) {
          const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0)
          const spaces = getHeapSpaceStatistics().map((space) => `${space.space_name.replace('_space', '')} ${mb(space.space_used_size)}`).join(', ')
          console.error(`memory MB: rss ${mb(sample.rss)} heap ${mb(sample.heapUsed)}/${mb(sample.heapTotal)} (${spaces}) external ${mb(sample.external)} arrayBuffers ${mb(sample.arrayBuffers)}`)
        }
      }, 10)
      cpu = process.cpuUsage()
      delay = monitorEventLoopDelay({ resolution: 10 })
      delay.enable()
      process.send?.('started')
    } else if (message === 'stop' && delay !== undefined) {
      delay.disable()
      clearInterval(sampler)
      const ms = (ns: number) => ns / 1e6
      send({
        stats: {
          p50: ms(delay.percentile(50)),
          p99: ms(delay.percentile(99)),
          max: ms(delay.max),
          rssGrowthMB: (peak.rss - base.rss) / 2 ** 20,
          heapGrowthMB: (peak.heap - base.heap) / 2 ** 20,
          cpuSeconds: ((used) => (used.user + used.system) / 1e6)(process.cpuUsage(cpu)),
        },
      })
    } else if (message === 'exit') {
      await app.close()
      await wire.close()
      await db.close()
      process.exit(0)
    }
  })
  send({ ready: { http, wire: wire.uri, itemId: String(first[0]?.['_id']) } })
}

async function seed(dir: string): Promise<void> {
  const db = await openEmbedded({ path: dir })
  const items = db.collection('items')
  const users = generateUsers(DOCS)
  const ids: ObjectId[] = []
  // Concurrent inserts share commits (group commit): seeding takes seconds, not minutes.
  for (let i = 0; i < users.length; i += 2000) {
    await Promise.all(users.slice(i, i + 2000).map((user) => {
      const _id = new ObjectId()
      ids.push(_id)
      return items.insertOne({ _id, ...user })
    }))
  }
  const posts = db.collection('posts')
  await Promise.all(Array.from({ length: POSTS }, (_, p) => posts.insertOne({ title: `post ${p}`, items: Array.from({ length: REFS_PER_POST }, (_, r) => ids[(p * REFS_PER_POST + r) % ids.length]) })))
  await db.close()
}

/** One GET, its body read and counted; resolves with the status, the bytes, the time taken and any Retry-After. */
function get(base: string, path: string): Promise<{ status: number, bytes: number, ms: number, retryAfter: number | undefined }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    request(new URL(path, base), (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
      })
      const retryAfter = res.headers['retry-after'] === undefined ? undefined : Number(res.headers['retry-after'])
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started, retryAfter }))
      res.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}

/** A client that honours 503 + Retry-After, as a well-behaved one does: the final status, and how many 503s it was told to wait. */
async function patientGet(base: string, path: string): Promise<{ status: number, waits: number }> {
  for (let waits = 0; ; waits++) {
    const { status, retryAfter } = await get(base, path)
    if (status !== 503 || retryAfter === undefined || waits === MAX_WAITS) return { status, waits }
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
  }
}

function waitFor<T>(child: ChildProcess, pick: (message: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const found = pick(message)
      if (found === undefined) return
      child.off('message', onMessage)
      resolve(found)
    }
    child.on('message', onMessage)
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)))
  })
}

interface Row extends Stats {
  workload: string
  statuses: string
  seconds: number
  probeMaxMs: number
  probeP99Ms: number
}

async function runWorkload(dir: string, workload: string): Promise<Row> {
  const child = fork(fileURLToPath(import.meta.url), ['serve', dir], { execArgv: ['--expose-gc', ...(process.env['BENCH_LOOP_NODE_ARGS']?.split(' ') ?? []), '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const ready = await waitFor(child, (m) => (typeof m === 'object' && m !== null && 'ready' in m ? (m as { ready: { http: string, wire: string, itemId: string } }).ready : undefined))
  const client = new MongoClient(ready.wire, { maxPoolSize: CLIENTS + 2 })
  await client.connect()
  // A first read of each kind outside the measure (compiles serializers, warms the JIT).
  await get(ready.http, '/items?limit=5&sort_by=name')
  await get(ready.http, '/posts?limit=2')
  child.send('start')
  await waitFor(child, (m) => (m === 'started' ? true : undefined))
  const started = performance.now()
  // The unrelated GETs come from a process of their own: this one is busy reading the eight answers.
  const prober = fork(fileURLToPath(import.meta.url), ['probe', `${ready.http}/items/${ready.itemId}`], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await waitFor(prober, (m) => (m === 'probing' ? true : undefined))
  let waits = 0
  const http = async (path: string): Promise<string> => {
    const answer = await patientGet(ready.http, path)
    waits += answer.waits
    return String(answer.status)
  }
  const one = async (): Promise<string> => {
    if (workload === 'sorted') return http('/items?sort_by=name')
    if (workload === 'filtered') return http(`/items?filters=${encodeURIComponent('{"name":"nobody"}')}`)
    if (workload === 'populate') return http('/posts?limit=1000')
    for (let wait = 0; ; wait++) {
      try {
        await client.db('embedded').collection('items').aggregate([{ $sort: { name: 1 } }]).toArray()
        return 'ok'
      } catch (error) {
        const code = (error as { code?: number }).code
        if (code !== 365 || wait === MAX_WAITS) return `error ${code}`
        waits++
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    }
  }
  const statuses = await Promise.all(Array.from({ length: CLIENTS }, one))
  const seconds = (performance.now() - started) / 1000
  prober.send('stop')
  const probes = await waitFor(prober, (m) => (Array.isArray(m) ? (m as number[]) : undefined))
  child.send('stop')
  const stats = await waitFor(child, (m) => (typeof m === 'object' && m !== null && 'stats' in m ? (m as { stats: Stats }).stats : undefined))
  await client.close()
  child.send('exit')
  await new Promise((resolve) => child.once('exit', resolve))
  const counts = new Map<string, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  const sorted = [...probes].sort((a, b) => a - b)
  return {
    workload,
    statuses: [...counts].map(([status, n]) => `${n}× ${status}`).join(', ') + (waits > 0 ? ` (after ${waits} retries told to wait)` : ''),
    seconds,
    probeMaxMs: sorted.at(-1) ?? 0,
    probeP99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
    ...stats,
  }
}

/** The prober: GETs `url` every PROBE_EVERY_MS until told to stop, then sends back how long each took. */
async function probe(url: string): Promise<void> {
  const times: number[] = []
  let running = true
  process.on('message', () => {
    running = false
  })
  process.send?.('probing')
  while (running) {
    times.push((await get(url, '')).ms)
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS))
  }
  process.send?.(times, () => process.exit(0))
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3]!)
} else if (process.argv[2] === 'probe') {
  await probe(process.argv[3]!)
} else {
  const dir = mkdtempSync(join(tmpdir(), 'fmc-loop-'))
  try {
    console.log(`\n## The event loop under ${CLIENTS} concurrent heavy reads (${DOCS} documents, on disk)`)
    await seed(dir)
    console.log('| workload | answers | seconds (server CPU s) | loop delay p50 / p99 / max ms | RSS growth MB | heap growth MB | unrelated GET p99 / max ms |')
    console.log('|---|---|---|---|---|---|---|')
    for (const workload of WORKLOADS) {
      const r = await runWorkload(dir, workload)
      console.log(
        `| ${r.workload} | ${r.statuses} | ${r.seconds.toFixed(1)} (${r.cpuSeconds.toFixed(1)}) | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} / ${r.max.toFixed(1)} | ${r.rssGrowthMB.toFixed(0)} | ${r.heapGrowthMB.toFixed(0)} | ${r.probeP99Ms.toFixed(0)} / ${r.probeMaxMs.toFixed(0)} |`,
      )
    }
    console.log('Goal: loop delay p99 under 50 ms, RSS growth under 150 MB.')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
