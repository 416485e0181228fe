/**
 * No request waits behind another (issue 24): GET one by id from BENCH_CONNECTIONS (default 50)
 * connections, alone and while another client (BENCH_MIXED_BACKGROUND connections, default 4) runs
 * sorted pages against the same server, for ours with the engine on disk in process
 * (servers/router-server.ts BENCH_MODE=disk) and ours through the driver against the engine's wire
 * server (BENCH_MODE=wire). The background pages: `limit=20&sort_by=age` (index on age), the same
 * page past a large `skip` (half the collection), and `limit=20&sort_by=name` (no index: the engine
 * sorts the whole collection for each page). Servers and wire server are pinned to one core, both
 * load generators to the other, as in http-throughput.ts; the background starts first and outlasts
 * the measured run. Prints GET one's p50, p99 (autocannon's histogram, 1 ms resolution), p99/p50 and
 * req/s, medians of the rounds, with the goal p99 < 5 × p50 marked met or missed, and how much of
 * each run the server's processes waited for their core (/proc schedstat): on a shared machine a tail
 * with the server runnable but not running is the machine's, not the code's.
 * Knobs: BENCH_MIXED_SECONDS (measured run, default 5), BENCH_ROUNDS (default 3), BENCH_USERS
 * (default 10000), BENCH_CONNECTIONS, BENCH_MIXED_BACKGROUND.
 * Run: node --import tsx bench/mixed-load.ts  (part of `npm run bench`; needs the build)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GET_ONE, median, runLoad, type System, seed, startBenchServer, startLoad, startServer, stopServers, WIRE_CLI, type Workload } from './http-throughput.ts'
import type { LoadResult } from './load-generator.ts'

const SECONDS = Number(process.env['BENCH_MIXED_SECONDS'] ?? 5)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
const USERS = Number(process.env['BENCH_USERS'] ?? 10_000)
const BACKGROUND = Number(process.env['BENCH_MIXED_BACKGROUND'] ?? 4)
/** The background starts first and runs this much longer than the measured run: it covers the measured load generator's start. */
const OVERLAP_SECONDS = 2
const GOAL = 5

const page = (key: string, title: string, path: string): Workload => ({ key, title, load: { method: 'GET', path } })
const BACKGROUNDS: Workload[] = [
  page('sorted', '`limit=20&sort_by=age` (indexed)', '/users?skip=0&limit=20&sort_by=age'),
  page('deep', `\`skip=${USERS / 2}&limit=20&sort_by=age\` (indexed)`, `/users?skip=${USERS / 2}&limit=20&sort_by=age`),
  page('unindexed', '`limit=20&sort_by=name` (no index)', '/users?limit=20&sort_by=name'),
]

interface Figures {
  p50: number
  p99: number
  ratio: number
  rate: number
  /** The background's req/s (0 alone). */
  background: number
  /**
   * The share of the run's wall time the server's processes were ready to run but waited for the
   * core (/proc schedstat: other work on a shared machine): a tail the code does not cause.
   */
  waited: number
}

/** Nanoseconds the processes have waited on a run queue so far (Linux schedstat); undefined without it. */
function runQueueNs(pids: number[]): number | undefined {
  let total = 0
  for (const pid of pids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1])
    } catch {
      return undefined
    }
  }
  return total
}

/** GET one alone, or while `background` runs from its own connections. */
async function runOnce(system: System, background: Workload | undefined, tag: string): Promise<Figures> {
  let other: Promise<LoadResult | undefined> = Promise.resolve(undefined)
  if (background !== undefined) {
    const started = startLoad(system, background, tag, { seconds: SECONDS + OVERLAP_SECONDS, connections: BACKGROUND })
    await started.started
    other = started.done
  }
  const before = runQueueNs(system.pids)
  const started = performance.now()
  const found = await runLoad(system, GET_ONE, tag, { seconds: SECONDS })
  const after = runQueueNs(system.pids)
  const waited = before === undefined || after === undefined ? Number.NaN : (after - before) / 1e6 / (performance.now() - started)
  const behind = await other
  return {
    waited, p50: found.latencyP50, p99: found.latencyP99, ratio: found.latencyP99 / Math.max(found.latencyP50, 1), rate: found.requestsPerSecond, background: behind?.requestsPerSecond ?? 0 }
}

const medianOf = (runs: Figures[]): Figures => ({
  p50: median(runs.map((run) => run.p50)),
  p99: median(runs.map((run) => run.p99)),
  ratio: median(runs.map((run) => run.ratio)),
  rate: median(runs.map((run) => run.rate)),
  background: median(runs.map((run) => run.background)),
  waited: median(runs.map((run) => run.waited)),
})

async function startSystems(work: string): Promise<System[]> {
  const wire = await startServer([WIRE_CLI, '--port', '0', '--path', join(work, 'wire-data')], {}, /^(mongodb:\/\/\S+)/)
  const disk = await startBenchServer('./servers/router-server.ts', { BENCH_MODE: 'disk', BENCH_DATA_DIR: join(work, 'disk-data') })
  const viaWire = await startBenchServer('./servers/router-server.ts', { BENCH_MODE: 'wire', BENCH_WIRE_URI: wire.url, BENCH_DB: 'ours' })
  const systems: System[] = [
    { key: 'disk', title: 'ours, engine on disk (in process)', url: disk.url, idsFile: join(work, 'disk-ids.txt'), pids: [disk.pid] },
    { key: 'wire', title: 'ours through the driver and the wire server', url: viaWire.url, idsFile: join(work, 'wire-ids.txt'), pids: [viaWire.pid, wire.pid] },
  ]
  for (const system of systems) {
    await seed(system.url, system.idsFile, USERS)
    const response = await fetch(`${system.url}/__bench/index`, { method: 'POST' })
    if (!response.ok) throw new Error(`createIndex on ${system.key}: ${response.status} ${await response.text()}`)
  }
  return systems
}

export async function benchMixedLoad(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fmc-mixed-'))
  try {
    console.log(`\n## Mixed load: GET one by id (${USERS} users, index on age) alone and beside ${BACKGROUND} connections of sorted pages; ${ROUNDS} interleaved rounds of ${SECONDS} s`)
    const systems = await startSystems(work)
    const scenarios: (Workload | undefined)[] = [undefined, ...BACKGROUNDS]
    const runs = new Map<string, Figures[]>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const system of systems) {
        for (const background of scenarios) {
          const key = `${system.key}/${background?.key ?? 'alone'}`
          runs.set(key, [...(runs.get(key) ?? []), await runOnce(system, background, `${key}-${round}`)])
        }
      }
    }
    console.log(`\nGET one: medians of the rounds (p99/p50 is the median of each run's ratio); goal p99 < ${GOAL} × p50.\n`)
    console.log('The last column but one: how much of the run the server was ready to run but waited for its core (other work on the machine).\n')
    console.log('| system | background | p50 ms | p99 ms | p99/p50 | GET one req/s | background req/s | server waited for CPU | goal |\n|---|---|---:|---:|---:|---:|---:|---:|---|')
    for (const system of systems) {
      for (const background of scenarios) {
        const found = medianOf(runs.get(`${system.key}/${background?.key ?? 'alone'}`)!)
        const goal = found.ratio < GOAL ? 'met' : 'missed'
        console.log(`| ${system.title} | ${background?.title ?? 'none (alone)'} | ${found.p50} | ${found.p99} | ${found.ratio.toFixed(1)} | ${found.rate.toFixed(0)} | ${background === undefined ? '-' : found.background.toFixed(0)} | ${Number.isNaN(found.waited) ? '-' : `${(found.waited * 100).toFixed(0)}%`} | ${goal} |`)
      }
    }
  } finally {
    stopServers()
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchMixedLoad()
