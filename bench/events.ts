/**
 * Change feed fan-out (`GET /items/_events`, docs/events.md) on the embedded engine on disk, with 0, 100,
 * 1,000 and 10,000 subscribers over real HTTP. Three processes: the server (servers/events-server.ts,
 * pinned to the server core as in http-throughput.ts), the subscribers (events-subscribers.ts) and this
 * writer, both on the other core. For each number of subscribers:
 * - the delay from a write to its event at each subscriber, one write at a time (each write waits for
 *   every subscriber's event before the next): median and p99 over every write and subscriber;
 * - the throughput of 16 concurrent writers (POST), and the delay of their events (p50, p99) while they
 *   write, with the time until every subscriber had every event;
 * - the server's RSS with the subscribers connected and idle, and its peak while the writes fan out.
 * A delay runs from the moment the writer sends the POST (the document carries that time) to the
 * event's arrival, on one clock (`performance.timeOrigin + performance.now()`), so it includes the
 * write's own latency. With 10,000 subscribers the writers write fewer documents (the events to deliver
 * stay at about 2 million), and the subscribers' process competes with the writer for its core.
 * Run: node --import tsx bench/events.ts  (part of `npm run bench`). Knobs: BENCH_EVENTS_SUBSCRIBERS
 * (comma-separated counts), BENCH_EVENTS_MEMORY=1 (the engine in memory), BENCH_EVENTS_PROFILE=<dir>
 * (the server writes a CPU profile there when it stops).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { LOAD_CORE, pinned, startServer, stopServers } from './http-throughput.ts'

const COUNTS = (process.env['BENCH_EVENTS_SUBSCRIBERS'] ?? '0,100,1000,10000').split(',').map(Number)
const SEQUENTIAL_WRITES = 50
const CONCURRENT_WRITERS = 16
/** Writes of the throughput phase: 2,000, fewer past 1,000 subscribers (about 2 million events to deliver). */
const throughputWrites = (subscribers: number) => Math.max(100, Math.min(2000, Math.floor(2_000_000 / Math.max(1, subscribers))))
/** How long the subscribers may take to receive every event of a phase before they report what they have. */
const DELIVERY_TIMEOUT_MS = 120_000

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const now = () => performance.timeOrigin + performance.now()

interface Delivered {
  received: number
  seconds: number
  p50: number
  p99: number
  max: number
}

/** The subscribers' process: one command at a time, each answered by one line. */
class Subscribers {
  readonly #child: ChildProcess
  readonly #answers: ((line: Record<string, unknown>) => void)[] = []

  constructor() {
    const [command, argv] = pinned(LOAD_CORE, process.execPath, ['--import', 'tsx', here('./events-subscribers.ts')])
    this.#child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'] })
    createInterface({ input: this.#child.stdout! }).on('line', (line) => this.#answers.shift()?.(JSON.parse(line) as Record<string, unknown>))
  }

  send(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#answers.push(resolve)
      this.#child.stdin!.write(`${JSON.stringify(command)}\n`)
    })
  }

  /** Resolves once every subscriber has `events` more events, or with what arrived once the time is up. */
  async expect(events: number, keep = false): Promise<Delivered> {
    const answered = this.send({ expect: events, keep })
    return answered.then((line) => line['done'] as Delivered)
  }

  /** Asks an `expect` under way to answer now. */
  report(): void {
    this.#child.stdin!.write(`${JSON.stringify({ report: true })}\n`)
  }

  stop(): void {
    this.#child.kill('SIGTERM')
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT_WRITERS })

/** One create, its document carrying the time it was sent. */
function post(url: string, n: number): Promise<void> {
  const body = JSON.stringify({ name: `item ${n}`, n, at: now() })
  return new Promise((resolve, reject) => {
    const req = request(`${url}/items`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume()
      response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`POST: ${response.statusCode}`))))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}

/** `delivered` within the timeout, or what the subscribers have by then. */
async function within(subscribers: Subscribers, delivered: Promise<Delivered>): Promise<Delivered> {
  const timer = setTimeout(() => subscribers.report(), DELIVERY_TIMEOUT_MS)
  try {
    return await delivered
  } finally {
    clearTimeout(timer)
  }
}

/** One write at a time, each once every subscriber has the one before: the delays of an idle feed. */
async function sequential(url: string, subscribers: Subscribers, count: number, first: number): Promise<Delivered | undefined> {
  if (count === 0) return undefined
  let last: Delivered | undefined
  for (let i = 0; i < SEQUENTIAL_WRITES; i++) {
    const delivered = subscribers.expect(1, i > 0)
    await post(url, first + i)
    last = await within(subscribers, delivered)
  }
  return last
}

/** CONCURRENT_WRITERS writers, `writes` creates in all: writes/s, and how their events reached the subscribers. */
async function throughput(url: string, subscribers: Subscribers, writes: number, first: number, pid: number): Promise<{ rate: number, delivered: Delivered, peakMB: number }> {
  let peakMB = rssMB(pid)
  const sampler = setInterval(() => {
    peakMB = Math.max(peakMB, rssMB(pid))
  }, 50)
  try {
    const delivered = subscribers.expect(writes)
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CONCURRENT_WRITERS }, async () => {
        while (next < writes) await post(url, first + next++)
      })
    )
    const rate = writes / ((performance.now() - started) / 1000)
    return { rate, delivered: await within(subscribers, delivered), peakMB }
  } finally {
    clearInterval(sampler)
  }
}

const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(value < 10 ? 1 : 0))

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fmc-bench-events-'))
  const profile = process.env['BENCH_EVENTS_PROFILE']
  const server = await startServer(
    [...(profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profile]), '--import', 'tsx', here('./servers/events-server.ts')],
    { BENCH_DATA_DIR: join(work, 'data') },
    /^LISTENING (\S+)/
  )
  const subscribers = new Subscribers()
  const rows: string[] = []
  let written = 0
  let open = 0
  try {
    const memory = process.env['BENCH_EVENTS_MEMORY'] === '1'
    console.log(`\n## Change feed fan-out: embedded engine ${memory ? 'in memory' : 'on disk'}, subscribers in a process of their own`)
    for (const count of COUNTS) {
      // Subscribers are added: each count keeps the ones before it.
      open = Number((await subscribers.send({ open: count - open, url: `${server.url}/items/_events` }))['open'])
      await new Promise((resolve) => setTimeout(resolve, 500))
      const idleMB = rssMB(server.pid)
      const quiet = await sequential(server.url, subscribers, count, written)
      written += SEQUENTIAL_WRITES
      const writes = throughputWrites(count)
      const loaded = await throughput(server.url, subscribers, writes, written, server.pid)
      written += writes
      const complete = count === 0 || loaded.delivered.received === writes * count ? '' : ` (${loaded.delivered.received} of ${writes * count} events)`
      console.log(`  ${count} subscribers: ${loaded.rate.toFixed(0)} writes/s (${writes} writes)${complete}`)
      rows.push(
        `| ${count} | ${loaded.rate.toFixed(0)} | ${count === 0 ? '-' : `${ms(quiet?.p50)} / ${ms(quiet?.p99)}`} | ${count === 0 ? '-' : `${ms(loaded.delivered.p50)} / ${ms(loaded.delivered.p99)}`} | ${count === 0 ? '-' : `${loaded.delivered.seconds.toFixed(1)} s${complete}`} | ${idleMB.toFixed(0)} / ${loaded.peakMB.toFixed(0)} |`
      )
    }
    console.log(`\n${CONCURRENT_WRITERS} concurrent writers; delays from the POST sent to the event received, ms (median / p99 over every write and subscriber).\n`)
    console.log('| subscribers | writes/s | delay, one write at a time | delay, writers at full speed | every event delivered in | server RSS idle / peak MB |')
    console.log('|---:|---:|---:|---:|---:|---:|')
    for (const row of rows) console.log(row)
  } finally {
    subscribers.stop()
    agent.destroy()
    stopServers()
    await new Promise((resolve) => setTimeout(resolve, 500))
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
