/**
 * `npm run bench`: every benchmark, each reporting ratios against a baseline run side by side.
 * Numbers are medians; these machines are noisy, so compare ratios, not absolute values.
 * BENCH_SECONDS / BENCH_ROUNDS / BENCH_USERS tune the throughput run (http-throughput.ts).
 * BENCH_SCALE=1 adds the 1,000,000-document run (scale.ts; seeding it takes minutes).
 * mixed-load.ts: GET one's p99 against its p50 while another client runs sorted pages (BENCH_MIXED_SECONDS).
 * start.ts: `fastify-mongo-crud serve api.json`'s spawn to first answer against a bare Fastify server's (BENCH_START_RUNS).
 * events.ts: the change feed's writes/s, delays and server RSS with 0 to 10,000 subscribers (BENCH_EVENTS_SUBSCRIBERS).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchThroughput } from './http-throughput.ts'

await benchThroughput()
// Each of these runs in its own process, so their memory and JIT state do not mix.
for (const script of ['./start.ts', './engine-reads.ts', './list-memory.ts', './wire-roundtrip.ts', './deep-page.ts', './groups.ts', './batch.ts', './data-api.ts', './events.ts', './event-loop.ts', './mixed-load.ts', ...(process.env['BENCH_SCALE'] === '1' ? ['./scale.ts'] : [])]) {
  console.log('')
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url))], { stdio: 'inherit' })
  if (child.status !== 0) process.exitCode = 1
}
