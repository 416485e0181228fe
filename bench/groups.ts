/**
 * Groups: `GET /users/_groups?by=city&metrics=count,avg:age` against the list of the same documents
 * (what a client would otherwise fetch to count them itself), over 100,000 users on the embedded engine,
 * without an index and with one on `city`; whole and filtered to one city. Then, on the Db itself, the
 * aggregation with and without a `$sort` on the by field before `$group` (which MongoDB can serve from
 * an index on it): whether that sort pays on the engine. Medians of interleaved rounds.
 * Run: node --import tsx bench/groups.ts  (part of `npm run bench`; BENCH_GROUPS_DOCS, BENCH_GROUPS_ROUNDS)
 */
import { performance } from 'node:perf_hooks'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'
import { generateUsers } from './gen-users.ts'

const User = MongoModel('User', { name: Type.String(), email: Type.String(), age: Type.Integer(), city: Type.String(), created_at: Type.String() })
const DOCS = Number(process.env['BENCH_GROUPS_DOCS'] ?? 100_000)
const ROUNDS = Number(process.env['BENCH_GROUPS_ROUNDS'] ?? 7)

type App = Awaited<ReturnType<typeof createApp>>

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await run()
  return performance.now() - started
}

async function get(app: App, url: string): Promise<unknown[]> {
  const res = await app.inject({ method: 'GET', url })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  return res.json() as unknown[]
}

/** Medians of each labelled run, interleaved round by round so that drift hits them all alike. */
async function compare(runs: Record<string, () => Promise<unknown>>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((label) => [label, []]))
  for (const run of Object.values(runs)) await run() // warm-up
  for (let round = 0; round < ROUNDS; round++) for (const [label, run] of Object.entries(runs)) times[label]!.push(await timed(run))
  return Object.fromEntries(Object.entries(times).map(([label, values]) => [label, median(values)]))
}

async function main(): Promise<void> {
  const db = await openEmbedded()
  const users = generateUsers(DOCS)
  const seeded = performance.now()
  for (const name of ['users', 'users_indexed']) {
    const collection = db.collection(name)
    for (const user of users) await collection.insertOne({ ...user })
  }
  console.log(`groups: ${DOCS} users seeded twice in ${((performance.now() - seeded) / 1000).toFixed(1)} s (embedded engine, in memory)`)
  const app = await createApp({ title: 'groups', version: '1', fastify: { logger: false } })
  await app.register(CRUDRouter, { model: User, db, collectionName: 'users', prefix: '/users' })
  await app.register(CRUDRouter, { model: User, db, collectionName: 'users_indexed', prefix: '/indexed', name: 'indexedUsers', indexes: [{ key: { city: 1 } }] })
  await app.ready()
  try {
    const paris = encodeURIComponent(JSON.stringify({ city: 'Paris' }))
    for (const prefix of ['/users', '/indexed']) {
      const label = prefix === '/users' ? 'no index  ' : 'city index'
      const whole = await compare({
        groups: () => get(app, `${prefix}/_groups?by=city&metrics=count,avg:age`),
        list: () => get(app, prefix),
      })
      console.log(`${label} all ${DOCS}: _groups ${whole['groups']!.toFixed(1)} ms | list ${whole['list']!.toFixed(1)} ms (${(whole['list']! / whole['groups']!).toFixed(1)}x _groups)`)
      const one = await compare({
        groups: () => get(app, `${prefix}/_groups?by=city&metrics=count,avg:age&filters=${paris}`),
        list: () => get(app, `${prefix}?filters=${paris}`),
      })
      console.log(`${label} city=Paris: _groups ${one['groups']!.toFixed(1)} ms | list ${one['list']!.toFixed(1)} ms (${(one['list']! / one['groups']!).toFixed(1)}x _groups)`)
    }
    // The pipeline `_groups` runs, and the same with a `$sort` on the by field first (MongoDB can serve it from the index).
    const group = { $group: { _id: '$city', m0: { $sum: 1 }, m1: { $avg: '$age' } } }
    const after = [{ $sort: { _id: 1 } }, { $limit: 1001 }]
    const collection = db.collection('users_indexed')
    const sorted = await compare({
      'as run': () => collection.aggregate([{ $match: {} }, group, ...after]).toArray(),
      'sort first': () => collection.aggregate([{ $match: {} }, { $sort: { city: 1 } }, group, ...after]).toArray(),
    })
    console.log(`city index, Db.aggregate: as _groups runs it ${sorted['as run']!.toFixed(1)} ms | with $sort on city before $group ${sorted['sort first']!.toFixed(1)} ms (${(sorted['sort first']! / sorted['as run']!).toFixed(2)}x)`)
  } finally {
    await app.close()
    await db.close()
  }
}

await main()
