/**
 * The issue's five workloads over 10,000 users seeded through each system's create route, side by
 * side in one run, with interleaved rounds (each round runs every system once, so machine noise
 * hits them alike), against:
 *  (a) a hand-written Fastify CRUD over an in-memory Map (servers/map-baseline.ts), not durable;
 *  (b) ours on the embedded engine on disk, durable (servers/router-server.ts, BENCH_MODE=disk);
 *  (c) ours through the official driver against the engine's wire server (BENCH_MODE=wire);
 *  (d) a hand-written Fastify route calling the official driver against the same wire server
 *      (servers/driver-route.ts);
 *  (e) a peer: express-restify-mongoose on Express 4 and mongoose 8 (with the driver mongoose brings)
 *      against the same wire server (servers/restify-mongoose.ts), the same workloads in its URL grammar.
 * The lists run without an index, then with one on `age` (createIndex through the collection API);
 * the writes run last, with the index. Every server runs in its own process pinned to one core
 * (`taskset`), the wire server beside it; autocannon runs in a child pinned to the other core.
 * Beside req/s, each run reads the CPU time its server processes used (/proc, Linux), and prints
 * CPU microseconds per request: on a machine shared with other work req/s swing with the load,
 * CPU per request less, and its ratios estimate the req/s ratios on cores of their own. It is no
 * cure for an overloaded machine: a server the starved load generator keeps half idle spends more
 * per request (fewer requests per wakeup), and a run of a few dozen requests carries one-off costs
 * (a driver pool opening its connections).
 * Knobs: BENCH_SECONDS (per run, default 2), BENCH_ROUNDS (default 3), BENCH_USERS (default 10000),
 * BENCH_CONNECTIONS (default 50).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { generateUsers } from './gen-users.ts'
import type { LoadConfig, LoadResult } from './load-generator.ts'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
const USERS = Number(process.env['BENCH_USERS'] ?? 10_000)
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50)
const SEED_CONCURRENCY = 8

/** Servers on one core, the load generator on the other; unpinned on a single-core machine. */
export const SERVER_CORE = '1'
export const LOAD_CORE = '0'

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
export const WIRE_CLI = fileURLToPath(new URL('../packages/embedded/dist/cli/main.js', import.meta.url))

export interface System {
  /** 'map', 'disk', 'wire', 'driver', 'erm' here; other benchmarks name theirs. */
  key: string
  title: string
  url: string
  idsFile: string
  /** The processes serving its requests (the router's or route's, and the wire server's). */
  pids: number[]
  /** A workload's path in the system's own grammar, when it is not the router's (express-restify-mongoose's). */
  pathOf?: (workload: Workload) => string
}

export interface Workload {
  key: string
  title: string
  load: Pick<LoadConfig, 'method' | 'path' | 'body'>
}

const FILTER = encodeURIComponent(JSON.stringify({ age: { $gt: 50 } }))
export const GET_ONE: Workload = { key: 'get_one', title: 'GET one by id', load: { method: 'GET', path: '/users/{id}' } }
export const list = (index: string): Workload => ({ key: `list${index}`, title: `list \`limit=20&sort_by=age\`${index}`, load: { method: 'GET', path: '/users?skip=0&limit=20&sort_by=age' } })
export const filter = (index: string): Workload => ({ key: `filter${index}`, title: `list \`limit=20\`, filter \`age > 50\`${index}`, load: { method: 'GET', path: `/users?limit=20&filters=${FILTER}` } })
export const CREATE: Workload = { key: 'create', title: 'POST create (durable)', load: { method: 'POST', path: '/users', body: 'create' } }
export const PATCH: Workload = { key: 'patch', title: 'PATCH one field (durable)', load: { method: 'PATCH', path: '/users/{id}', body: 'patch' } }

/** express-restify-mongoose's URLs (`/api/v1/users`) and list grammar (`sort`, `query` as JSON) for the same workloads. */
const ERM_FILTER = encodeURIComponent(JSON.stringify({ age: { $gt: 50 } }))
export function restifyPathOf(workload: Workload): string {
  if (workload.key.startsWith('list')) return '/api/v1/users?skip=0&limit=20&sort=age'
  if (workload.key.startsWith('filter')) return `/api/v1/users?limit=20&query=${ERM_FILTER}`
  return `/api/v1${workload.load.path}`
}

const pinnable = await canPin()

export function pinned(core: string, command: string, args: string[]): [string, string[]] {
  return pinnable ? ['taskset', ['-c', core, command, ...args]] : [command, args]
}

async function canPin(): Promise<boolean> {
  const { availableParallelism } = await import('node:os')
  if (availableParallelism() < 2) return false
  return new Promise((resolve) => {
    const probe = spawn('taskset', ['-c', SERVER_CORE, 'true'], { stdio: 'ignore' })
    probe.on('error', () => resolve(false))
    probe.on('exit', (code) => resolve(code === 0))
  })
}

const children: ChildProcess[] = []

/** Starts a server pinned to the server core and waits for the first line matching `ready`. */
export function startServer(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ url: string, pid: number }> {
  const [command, argv] = pinned(SERVER_CORE, process.execPath, args)
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)))
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      const found = ready.exec(line)
      // taskset execs the command: the child's pid is the server's.
      if (found) resolve({ url: found[1]!, pid: child.pid! })
    })
  })
}

export const startBenchServer = (script: string, env: Record<string, string> = {}) => startServer(['--import', 'tsx', here(script)], env, /^LISTENING (\S+)/)

/** CPU time (user + system, ms) the processes have used so far; undefined without /proc. */
function cpuMs(pids: number[]): number | undefined {
  let total = 0
  for (const pid of pids) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
    } catch {
      return undefined
    }
  }
  return total
}

/** USER_HZ: 100 on every Linux the benchmark runs on. */
const CLOCK_TICKS = 100

/** Stops the servers started so far, by their own handles. */
export function stopServers(): void {
  for (const child of children.splice(0).reverse()) child.kill('SIGTERM')
}

/** POSTs every user through the create route (`path`), a few at a time, and writes the ids it answered (`id`, or `_id`). */
export async function seed(url: string, file: string, count = USERS, path = '/users'): Promise<void> {
  const users = generateUsers(count)
  const ids: string[] = new Array(users.length)
  let next = 0
  async function worker(): Promise<void> {
    while (next < users.length) {
      const i = next++
      const response = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(users[i]) })
      const body = (await response.json()) as { id?: string, _id?: string }
      const id = body.id ?? body._id
      if (response.status !== 201 || typeof id !== 'string') throw new Error(`seeding ${url}: ${response.status} ${JSON.stringify(body)}`)
      ids[i] = id
    }
  }
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker))
  writeFileSync(file, `${ids.join('\n')}\n`)
}

/** One load run from a child pinned to the load core. */
export function runLoad(system: System, workload: Workload, runTag: string, length: Partial<Pick<LoadConfig, 'seconds' | 'connections'>> = {}): Promise<LoadResult> {
  return startLoad(system, workload, runTag, length).done
}

/** A load run started: `started` once the load generator begins sending, `done` with its result. */
export function startLoad(system: System, workload: Workload, runTag: string, length: Partial<Pick<LoadConfig, 'seconds' | 'connections'>> = {}): { started: Promise<void>, done: Promise<LoadResult> } {
  const config: LoadConfig = { url: system.url, idsFile: system.idsFile, seconds: SECONDS, connections: CONNECTIONS, runTag, ...length, ...workload.load, path: system.pathOf?.(workload) ?? workload.load.path }
  const [command, argv] = pinned(LOAD_CORE, process.execPath, ['--import', 'tsx', here('./load-generator.ts'), JSON.stringify(config)])
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  let announce: () => void
  const started = new Promise<void>((resolve) => {
    announce = resolve
  })
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk
    if (out.startsWith('STARTED')) announce()
  })
  const done = new Promise<LoadResult>((resolve, reject) => {
    child.on('exit', (code) => {
      announce()
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`))
      const result = JSON.parse(out.trim().split('\n').pop()!) as LoadResult
      // A run answering errors would measure the error path: say so rather than report it silently.
      if (result.non2xx > 0 || result.errors > 0) console.warn(`  ${system.key} ${workload.key}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
      resolve(result)
    })
  })
  return { started, done }
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** CPU microseconds per request, per workload and system (medians), when /proc tells. */
export const cpuPerRequest = new Map<string, Map<string, number>>()

/** Every system once per round, rounds interleaved; medians per system. */
export async function measure(systems: System[], workload: Workload, results: Map<string, Map<string, number>>): Promise<void> {
  const runs = new Map<string, number[]>(systems.map((system) => [system.key, []]))
  const cpuRuns = new Map<string, number[]>(systems.map((system) => [system.key, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const system of systems) {
      const before = cpuMs(system.pids)
      const result = await runLoad(system, workload, `${workload.key}-${round}`)
      const after = cpuMs(system.pids)
      runs.get(system.key)!.push(result.requestsPerSecond)
      if (before !== undefined && after !== undefined && result.requests > 0) cpuRuns.get(system.key)!.push(((after - before) * 1000) / result.requests)
    }
  }
  const medians = new Map([...runs].map(([key, values]) => [key, median(values)]))
  results.set(workload.key, medians)
  if ([...cpuRuns.values()].every((values) => values.length > 0)) cpuPerRequest.set(workload.key, new Map([...cpuRuns].map(([key, values]) => [key, median(values)])))
  const cpu = cpuPerRequest.get(workload.key)
  console.log(`  ${workload.title}: ${[...medians].map(([key, value]) => `${key} ${value.toFixed(0)}${cpu ? ` (${cpu.get(key)!.toFixed(0)} µs CPU)` : ''}`).join(', ')} req/s`)
}

const rate = (value: number) => (value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : value >= 1000 ? `${(value / 1000).toFixed(2)}k` : value.toFixed(0))
const times = (value: number) => `${value.toFixed(value >= 10 ? 1 : 2)}×`

function printTables(systems: System[], workloads: Workload[], results: Map<string, Map<string, number>>): void {
  console.log(`\n## Throughput: ${USERS} users seeded through the create route, ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections${pinnable ? ', servers pinned to one core, autocannon to the other' : ' (not pinned: fewer than 2 cores or no taskset)'}`)
  console.log('Ratios against the Map baseline (median req/s in brackets).\n')
  console.log(`| workload | ${systems.map((s) => s.title).join(' | ')} |`)
  console.log(`|---|${systems.map(() => '---:').join('|')}|`)
  for (const workload of workloads) {
    const row = results.get(workload.key)!
    const base = row.get('map')!
    console.log(`| ${workload.title} | ${systems.map((s) => `${times(row.get(s.key)! / base)} (${rate(row.get(s.key)!)} req/s)`).join(' | ')} |`)
  }
  if (workloads.every((workload) => cpuPerRequest.has(workload.key))) {
    console.log('\nCPU time per request of the serving processes (the wire server included), and the Map baseline\'s over it: the req/s ratio on cores of their own.\n')
    console.log(`| workload | ${systems.map((s) => s.title).join(' | ')} |`)
    console.log(`|---|${systems.map(() => '---:').join('|')}|`)
    for (const workload of workloads) {
      const row = cpuPerRequest.get(workload.key)!
      const base = row.get('map')!
      console.log(`| ${workload.title} | ${systems.map((s) => `${times(base / row.get(s.key)!)} (${row.get(s.key)!.toFixed(0)} µs)`).join(' | ')} |`)
    }
    console.log('\n| workload | ours wire / ours on disk (CPU) | ours wire / hand-written driver route (CPU) | ours wire / express-restify-mongoose (CPU) |')
    console.log('|---|---:|---:|---:|')
    for (const workload of workloads) {
      const row = cpuPerRequest.get(workload.key)!
      console.log(`| ${workload.title} | ${times(row.get('disk')! / row.get('wire')!)} | ${times(row.get('driver')! / row.get('wire')!)} | ${times(row.get('erm')! / row.get('wire')!)} |`)
    }
  }
  console.log('\nThrough the driver and the wire server: against ours in process, the hand-written driver route, and the peer express-restify-mongoose.\n')
  console.log('| workload | ours wire / ours on disk | ours wire / hand-written driver route | ours wire / express-restify-mongoose |')
  console.log('|---|---:|---:|---:|')
  for (const workload of workloads) {
    const row = results.get(workload.key)!
    console.log(`| ${workload.title} | ${times(row.get('wire')! / row.get('disk')!)} | ${times(row.get('wire')! / row.get('driver')!)} | ${times(row.get('wire')! / row.get('erm')!)} |`)
  }
}

export async function benchThroughput(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fmc-bench-'))
  try {
    console.log(`\n## Setting up: 5 servers, ${USERS} users each through the create route`)
    const wire = await startServer([WIRE_CLI, '--port', '0', '--path', join(work, 'wire-data')], {}, /^(mongodb:\/\/\S+)/)
    const wireUri = wire.url
    const servers = {
      map: await startBenchServer('./servers/map-baseline.ts'),
      disk: await startBenchServer('./servers/router-server.ts', { BENCH_MODE: 'disk', BENCH_DATA_DIR: join(work, 'disk-data') }),
      wire: await startBenchServer('./servers/router-server.ts', { BENCH_MODE: 'wire', BENCH_WIRE_URI: wireUri, BENCH_DB: 'ours' }),
      driver: await startBenchServer('./servers/driver-route.ts', { BENCH_WIRE_URI: wireUri, BENCH_DB: 'driver' }),
      erm: await startBenchServer('./servers/restify-mongoose.ts', { BENCH_WIRE_URI: wireUri, BENCH_DB: 'erm' }),
    }
    // The wire server serves both driver-backed systems; they run one at a time, so its CPU is theirs.
    const pids = { map: [servers.map.pid], disk: [servers.disk.pid], wire: [servers.wire.pid, wire.pid], driver: [servers.driver.pid, wire.pid], erm: [servers.erm.pid, wire.pid] }
    const titles = {
      map: 'Map baseline',
      disk: 'ours, engine on disk',
      wire: 'ours through the driver and the wire server',
      driver: 'hand-written driver route, same wire server',
      erm: 'express-restify-mongoose (Express 4, mongoose 8), same wire server',
    }
    const systems: System[] = []
    for (const key of ['map', 'disk', 'wire', 'driver', 'erm'] as const) {
      const started = performance.now()
      const idsFile = join(work, `${key}-ids.txt`)
      await seed(servers[key].url, idsFile, USERS, key === 'erm' ? '/api/v1/users' : '/users')
      console.log(`  seeded ${key} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      systems.push({ key, title: titles[key], url: servers[key].url, idsFile, pids: pids[key], ...(key === 'erm' ? { pathOf: restifyPathOf } : {}) })
    }
    const results = new Map<string, Map<string, number>>()
    const workloads: Workload[] = [GET_ONE, list(''), filter('')]
    console.log('\n## Measuring (reads without an index on age)')
    for (const workload of workloads) await measure(systems, workload, results)
    for (const system of systems) {
      const response = await fetch(`${system.url}/__bench/index`, { method: 'POST' })
      if (!response.ok) throw new Error(`createIndex on ${system.key}: ${response.status} ${await response.text()}`)
    }
    console.log('## Measuring (with an index on age; writes last)')
    const indexed = [list(', index on age'), filter(', index on age'), CREATE, PATCH]
    for (const workload of indexed) await measure(systems, workload, results)
    printTables(systems, [GET_ONE, workloads[1]!, indexed[0]!, workloads[2]!, indexed[1]!, CREATE, PATCH], results)
  } finally {
    stopServers()
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchThroughput()
