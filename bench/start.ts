/**
 * Start time: from spawning `fastify-mongo-crud serve api.json` (the repository's demo file, the engine
 * on disk in a directory of its own) to its first answer (a GET of the first router's list), against
 * the same for a bare Fastify server (servers/fastify-bare.mjs: one route, plain node). Both are spawned
 * with this process's node, as a user starts them (no tsx, no pinning), alternately, RUNS times each
 * after one start of each that is not counted (it creates the data directory and fills the OS's file
 * cache and Node's compile cache); medians, and ours over the bare server's (goal ≤ 3×).
 * Knobs: BENCH_START_RUNS (default 7); BENCH_START_PROFILE=<dir>: one more start of ours, with a CPU
 * profile written there.
 * Run: node --import tsx bench/start.ts  (part of `npm run bench`)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const RUNS = Number(process.env['BENCH_START_RUNS'] ?? 7)
const root = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(root, 'packages/fastify-mongo-crud/bin/fastify-mongo-crud.js')
const BARE = fileURLToPath(new URL('./servers/fastify-bare.mjs', import.meta.url))

interface Started {
  /** Spawn to the line saying where it listens, ms. */
  listening: number
  /** Spawn to the end of the first answer, ms. */
  answered: number
}

interface Server {
  title: string
  args: string[]
  ready: RegExp
  path: string
}

/** Spawns `server`, waits for its line and its first answer, then stops it (SIGTERM) and waits for its exit. */
async function startOnce(server: Server, nodeArgs: string[] = []): Promise<Started> {
  const started = performance.now()
  const child = spawn(process.execPath, [...nodeArgs, ...server.args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${server.title} exited with ${code} before it listened`)))
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const found = server.ready.exec(line)
        if (found) resolve(found[1]!)
      })
    })
    const listening = performance.now() - started
    const response = await fetch(url + server.path)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${server.title}: GET ${server.path} answered ${response.status}`)
    return { listening, answered: performance.now() - started }
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function benchStart(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fmc-bench-start-'))
  try {
    const api = JSON.parse(readFileSync(join(root, 'api.json'), 'utf8')) as { routers: Record<string, { prefix: string }> }
    const firstList = Object.values(api.routers)[0]!.prefix
    const bare: Server = { title: 'bare Fastify', args: [BARE], ready: /^LISTENING (\S+)/, path: '/' }
    const ours: Server = { title: 'serve api.json', args: [CLI, 'serve', 'api.json', '--port', '0', '--data', join(work, 'data')], ready: /listening on (http:\/\/\S+)/, path: firstList }
    const runs = new Map<Server, Started[]>([
      [bare, []],
      [ours, []],
    ])
    for (const server of runs.keys()) await startOnce(server)
    for (let run = 0; run < RUNS; run++) for (const [server, times] of runs) times.push(await startOnce(server))
    console.log(`\n## Start: spawn to first answer, ${process.version}, medians of ${RUNS} starts each (alternating, after one uncounted start of each)\n`)
    console.log('| server | spawn to listening | spawn to first answer | against bare Fastify |')
    console.log('|---|---:|---:|---:|')
    const floor = median(runs.get(bare)!.map((time) => time.answered))
    for (const [server, times] of runs) {
      const answered = median(times.map((time) => time.answered))
      console.log(`| ${server.title}${server === ours ? ` (GET ${server.path})` : ''} | ${median(times.map((time) => time.listening)).toFixed(0)} ms | ${answered.toFixed(0)} ms | ${(answered / floor).toFixed(2)}×${server === ours ? ` (goal ≤ 3×: ${answered / floor <= 3 ? 'met' : 'missed'})` : ''} |`)
    }
    const profile = process.env['BENCH_START_PROFILE']
    if (profile !== undefined) {
      await startOnce(ours, ['--cpu-prof', '--cpu-prof-dir', profile])
      console.log(`\nCPU profile of one start of ours in ${profile}`)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchStart()
