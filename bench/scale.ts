/**
 * The scale targets of issue 11, at 1,000,000 users against 10,000 (BENCH_SCALE_USERS overrides
 * the large size): the cold open of the large directory in a fresh process; GET one and the
 * indexed sorted page (`limit=20&sort_by=age`, index on age) side by side at both sizes, each
 * server pinned as in http-throughput.ts; and the server's RSS while it streams an unbounded list
 * of the large collection (unsorted, and sorted by the indexed field), peak minus baseline.
 * Seeding goes through the engine in process (insertOne in large concurrent batches, which share
 * commits), not through HTTP: a million creates over HTTP would take most of an hour.
 * Run by bench/run.ts when BENCH_SCALE=1, or alone: node --import tsx bench/scale.ts
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { generateUsers } from './gen-users.ts'
import { GET_ONE, list, median, pinned, runLoad, SERVER_CORE, type System, type Workload } from './http-throughput.ts'

const LARGE = Number(process.env['BENCH_SCALE_USERS'] ?? 1_000_000)
const SMALL = 10_000
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
const BATCH = 10_000
/** GET one picks among this many ids of each collection (every n-th inserted id). */
const IDS_KEPT = 20_000
const here = fileURLToPath(import.meta.url)

/** Seeds `count` users (index on age first, as an application declares it) and writes a sample of their ids. */
async function seed(dir: string, count: number, idsFile: string): Promise<void> {
  const db = await openEmbedded({ path: dir })
  const users = db.collection('users')
  await users.createIndex({ age: 1 })
  const every = Math.max(1, Math.floor(count / IDS_KEPT))
  const ids: string[] = []
  for (let done = 0; done < count; done += BATCH) {
    const batch = generateUsers(Math.min(BATCH, count - done), 42 + done)
    const inserted = await Promise.all(batch.map((user) => users.insertOne({ ...user })))
    for (let i = 0; i < inserted.length; i += every) ids.push(String(inserted[i]!.insertedId))
  }
  await db.close()
  writeFileSync(idsFile, `${ids.join('\n')}\n`)
}

/** In a fresh process: opening the directory, then the first GET-one-shaped and sorted-page reads. */
async function coldOpen(dir: string, id: string): Promise<void> {
  const { ObjectId } = await import('mongodb')
  let started = performance.now()
  const db = await openEmbedded({ path: dir })
  const users = db.collection('users')
  const open = performance.now() - started
  started = performance.now()
  await users.findOne({ _id: new ObjectId(id) })
  const first = performance.now() - started
  started = performance.now()
  await users.find({}, { sort: { age: 1, _id: 1 }, limit: 20 }).toArray()
  const page = performance.now() - started
  await db.close()
  console.log(JSON.stringify({ open, first, page }))
}

function startServer(dir: string): Promise<{ url: string, child: ChildProcess }> {
  const [command, argv] = pinned(SERVER_CORE, process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./servers/router-server.ts', import.meta.url))])
  const child = spawn(command, argv, { env: { ...process.env, BENCH_MODE: 'disk', BENCH_DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`router server exited with ${code} before it was ready`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = /^LISTENING (\S+)/.exec(line)
      if (found) resolve({ url: found[1]!, child })
    })
  })
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

/** Streams `path` to its end, sampling the server's RSS; answers the peak growth over the RSS before. */
async function streamedRss(url: string, pid: number, path: string): Promise<{ growthMB: number, baselineMB: number, responseMB: number, seconds: number }> {
  const baseline = rssOf(pid)
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid))
  }, 20)
  const started = performance.now()
  const bytes = await new Promise<number>((resolve, reject) => {
    request(new URL(path, url), (res) => {
      let total = 0
      res.on('data', (chunk: Buffer) => {
        total += chunk.length
      })
      res.on('end', () => (res.statusCode === 200 ? resolve(total) : reject(new Error(`${path}: ${res.statusCode}`))))
    })
      .on('error', reject)
      .end()
  })
  clearInterval(sampler)
  const mb = (value: number) => value / 2 ** 20
  return { growthMB: mb(peak - baseline), baselineMB: mb(baseline), responseMB: mb(bytes), seconds: (performance.now() - started) / 1000 }
}

export async function benchScale(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fmc-scale-'))
  const servers: ChildProcess[] = []
  try {
    console.log(`\n## Scale: ${SMALL} against ${LARGE} users (engine on disk, index on age)`)
    const sizes = [SMALL, LARGE]
    for (const size of sizes) {
      const started = performance.now()
      await seed(join(work, `users-${size}`), size, join(work, `ids-${size}.txt`))
      console.log(`  seeded ${size} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    }

    const largeDir = join(work, `users-${LARGE}`)
    const anId = readFileSync(join(work, `ids-${LARGE}.txt`), 'utf8').split('\n')[0]!
    const [command, argv] = pinned(SERVER_CORE, process.execPath, ['--import', 'tsx', here, '--cold-open', largeDir, anId])
    const cold = spawnSync(command, argv, { encoding: 'utf8' })
    if (cold.status !== 0) throw new Error(cold.stderr)
    const opened = JSON.parse(cold.stdout.trim().split('\n').pop()!) as { open: number, first: number, page: number }
    console.log(`  cold open of ${LARGE} users (fresh process): open ${(opened.open / 1000).toFixed(2)} s, first read by id ${opened.first.toFixed(0)} ms, first sorted page ${opened.page.toFixed(0)} ms`)

    const systems: System[] = []
    for (const size of sizes) {
      const { url, child } = await startServer(join(work, `users-${size}`))
      servers.push(child)
      systems.push({ key: size === SMALL ? 'map' : 'disk', title: `${size} users`, url, idsFile: join(work, `ids-${size}.txt`), pids: [child.pid!] })
    }
    const workloads: Workload[] = [GET_ONE, list(', index on age')]
    console.log(`\n| workload | ${SMALL} users | ${LARGE} users | ratio |\n|---|---:|---:|---:|`)
    for (const workload of workloads) {
      const runs = systems.map(() => [] as number[])
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, system] of systems.entries()) runs[i]!.push((await runLoad(system, workload, `${workload.key}-${round}`)).requestsPerSecond)
      }
      const [small, large] = runs.map(median) as [number, number]
      console.log(`| ${workload.title} | ${small.toFixed(0)} req/s | ${large.toFixed(0)} req/s | ${(large / small).toFixed(2)}× |`)
    }

    console.log(`\nServer RSS while streaming an unbounded list of ${LARGE} users (peak minus the RSS before the request):\n`)
    console.log('| list | response MB | seconds | RSS before MB | peak RSS growth MB |\n|---|---:|---:|---:|---:|')
    const largeServer = servers[1]!
    for (const path of ['/users', '/users?sort_by=age']) {
      const found = await streamedRss(systems[1]!.url, largeServer.pid!, path)
      console.log(`| \`GET ${path}\` | ${found.responseMB.toFixed(0)} | ${found.seconds.toFixed(1)} | ${found.baselineMB.toFixed(0)} | ${found.growthMB.toFixed(1)} |`)
    }
  } finally {
    // Only the servers this benchmark started, by their own handles.
    for (const child of servers) child.kill('SIGTERM')
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--cold-open') await coldOpen(process.argv[3]!, process.argv[4]!)
else if (process.argv[1] === here) await benchScale()
