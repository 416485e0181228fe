/**
 * One load run, in its own process so that the benchmark can pin it to a core of its own:
 * autocannon against one URL for BENCH_SECONDS, `connections` at once, one workload of
 * http-throughput.ts. The configuration comes as JSON in argv[2]; prints the result as JSON.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { seededRandom } from '../test/harness/seeded-random.ts'
import { CITIES } from './gen-users.ts'

export interface LoadConfig {
  url: string
  method: 'GET' | 'POST' | 'PATCH'
  /** Path and query; `{id}` is replaced, request by request, by a random id of `idsFile`. */
  path: string
  idsFile?: string
  body?: 'create' | 'patch'
  seconds: number
  connections: number
  /** Makes the created users' emails unique across runs. */
  runTag: string
}

export interface LoadResult {
  requestsPerSecond: number
  /** Requests completed in the run. */
  requests: number
  non2xx: number
  errors: number
  /** Latency percentiles of the run, ms (autocannon's histogram, 1 ms resolution). */
  latencyP50: number
  latencyP99: number
}

const config = JSON.parse(process.argv[2]!) as LoadConfig
const ids = config.idsFile === undefined ? [] : readFileSync(config.idsFile, 'utf8').split('\n').filter(Boolean)
const random = seededRandom(process.pid)
let created = 0

function nextBody(): string | undefined {
  if (config.body === 'create') {
    created++
    const age = 18 + Math.floor(random() * 63)
    return JSON.stringify({ name: `Bench User ${created}`, email: `bench-${config.runTag}-${created}@example.com`, age, city: CITIES[created % CITIES.length], created_at: '2024-06-01T12:00:00.000Z' })
  }
  if (config.body === 'patch') return JSON.stringify({ age: 18 + Math.floor(random() * 63) })
  return undefined
}

const dynamic = config.path.includes('{id}') || config.body !== undefined
// Tells the parent the load begins (mixed-load.ts starts its measured run once a background load runs).
console.log('STARTED')
const result = await autocannon({
  url: dynamic ? config.url : config.url + config.path,
  connections: config.connections,
  duration: config.seconds,
  method: config.method,
  headers: config.body === undefined ? {} : { 'content-type': 'application/json' },
  ...(dynamic
    ? {
        requests: [
          {
            setupRequest: (request) => {
              const path = config.path.replace('{id}', ids[Math.floor(random() * ids.length)] ?? '')
              const body = nextBody()
              return { ...request, path, ...(body === undefined ? {} : { body }) }
            },
          },
        ],
      }
    : {}),
})
// Completed requests over the run's length: the per-second average reads 0 for a workload slower than a second.
const answer: LoadResult = { requestsPerSecond: result.requests.total / result.duration, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors, latencyP50: result.latency.p50, latencyP99: result.latency.p99 }
console.log(JSON.stringify(answer))
