/**
 * What type-checking the README's quick start costs a user, and where the cost comes from (not a test:
 * prints numbers, asserts nothing; test/types/readme-quick-start.test.ts holds the instantiation budget).
 *   npm run build && node --import tsx bench/type-check-cost.ts      (TYPECOST_RUNS=3: runs per program)
 * Each program is checked in a fresh project against the BUILT packages (test/harness/fresh-project.ts),
 * with `skipLibCheck: true` (what `tsc --init` writes) and `false` (tsc's default: every .d.ts of
 * node_modules is checked too). For each: type instantiations (the same on every machine), and the fastest
 * run's check time and CPU time (user + system: less sensitive than wall time to a busy machine). Then the
 * check time of the quick start without skipLibCheck, by package (from `tsc --generateTrace`).
 */
import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { freshProject, quickStart, requireBuiltPackages, root } from '../test/harness/fresh-project.ts'

const RUNS = Number(process.env['TYPECOST_RUNS'] ?? 3)

/** The programs measured: the quick start, and what it costs without this library. */
const PROGRAMS: Record<string, () => Promise<string>> = {
  'README quick start': quickStart,
  'fastify + mongodb only': async () => "import Fastify from 'fastify'\nimport { MongoClient } from 'mongodb'\nconst app = Fastify()\nvoid new MongoClient('mongodb://localhost').db('app')\nawait app.listen({ port: 8000 })\n",
  'typebox only (one model)': async () => "import { Type, type Static } from 'typebox'\nexport const User = Type.Object({ name: Type.String(), email: Type.String() })\nexport type User = Static<typeof User>\n",
}

interface Run {
  instantiations: number
  checkSeconds: number
  cpuSeconds: number
}

/** One `tsc --extendedDiagnostics` run over `dir`, in a child that reports its own CPU time on exit. */
function measure(dir: string, extra: readonly string[] = []): Promise<Run> {
  const compiler = join(root, 'node_modules/typescript/bin/tsc')
  const reportCpu = `process.on('exit', () => { const u = process.cpuUsage(); process.stdout.write('CPU ' + (u.user + u.system) / 1e6 + '\\n') })`
  const args = ['--import', `data:text/javascript,${encodeURIComponent(reportCpu)}`, compiler, '-p', dir, '--extendedDiagnostics', ...extra]
  return new Promise((done, fail) => {
    execFile(process.execPath, args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1])
      const run = { instantiations: number(/^Instantiations:\s+(\d+)/m), checkSeconds: number(/^Check time:\s+([\d.]+)s/m), cpuSeconds: number(/^CPU ([\d.]+)/m) }
      if (Number.isNaN(run.instantiations)) fail(new Error(`tsc gave no diagnostics (${error?.message ?? 'no error'}):\n${stdout}`))
      else done(run)
    })
  })
}

/** The fastest of RUNS runs (instantiations are the same in each). */
async function fastest(dir: string, extra: readonly string[] = []): Promise<Run> {
  const runs: Run[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await measure(dir, extra))
  return runs.reduce((best, run) => (run.cpuSeconds < best.cpuSeconds ? run : best))
}

/** Check time by package (`typebox/build/type/engine`...), from the checkSourceFile events of a trace. */
async function checkTimeByPackage(dir: string): Promise<Array<[string, number]>> {
  const traceDir = join(dir, 'trace')
  await measure(dir, ['--skipLibCheck', 'false', '--generateTrace', traceDir])
  const events = JSON.parse(await readFile(join(traceDir, 'trace.json'), 'utf8')) as Array<{ name: string, ph: string, ts: number, args?: { path?: string } }>
  const open: Array<{ ts: number, path: string }> = []
  const byPackage = new Map<string, number>()
  for (const event of events.filter((e) => e.name === 'checkSourceFile')) {
    if (event.ph === 'B') open.push({ ts: event.ts, path: event.args?.path ?? '?' })
    if (event.ph !== 'E') continue
    const begun = open.pop()!
    const path = begun.path.includes('node_modules/') ? begun.path.slice(begun.path.lastIndexOf('node_modules/') + 13) : begun.path.replace(dir, '(project)')
    // The packages' own declarations are linked, not installed: their path is the workspace's (packages/<name>/dist).
    const ours = path.startsWith(`${root}/packages/`) ? `${path.slice(root.length + 1).split('/').slice(0, 3).join('/')} (ours)` : undefined
    const key = ours ?? path.split('/').slice(0, path.startsWith('typebox/') ? 4 : path.startsWith('@') ? 2 : 1).join('/')
    byPackage.set(key, (byPackage.get(key) ?? 0) + (event.ts - begun.ts) / 1e6)
  }
  return [...byPackage].sort((a, b) => b[1] - a[1])
}

requireBuiltPackages()
const pad = (text: string | number, width: number) => String(text).padStart(width)
console.log(`Type-check cost, fastest of ${RUNS} runs (TypeScript ${JSON.parse(await readFile(join(root, 'node_modules/typescript/package.json'), 'utf8')).version})`)
console.log(`${'program'.padEnd(26)} ${'skipLibCheck'.padEnd(12)} ${pad('instantiations', 14)} ${pad('check s', 8)} ${pad('CPU s', 7)}`)
let quickStartDir = ''
for (const [name, source] of Object.entries(PROGRAMS)) {
  const dir = await freshProject()
  await writeFile(join(dir, 'program.ts'), await source())
  for (const skip of [true, false]) {
    const run = await fastest(dir, ['--skipLibCheck', String(skip)])
    console.log(`${name.padEnd(26)} ${String(skip).padEnd(12)} ${pad(run.instantiations.toLocaleString('en'), 14)} ${pad(run.checkSeconds.toFixed(2), 8)} ${pad(run.cpuSeconds.toFixed(2), 7)}`)
  }
  if (quickStartDir === '') quickStartDir = dir
  else await rm(dir, { recursive: true, force: true })
}
console.log('\nQuick start without skipLibCheck: check time by package (top 6, and ours)')
for (const [key, seconds] of (await checkTimeByPackage(quickStartDir)).filter(([key], i) => i < 6 || key.endsWith('(ours)'))) console.log(`${pad(seconds.toFixed(2), 8)} s  ${key}`)
await rm(quickStartDir, { recursive: true, force: true })
