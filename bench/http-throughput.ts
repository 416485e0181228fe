/**
 * Requests per second of the generated routes against a hand-written Fastify baseline doing the same
 * work over the same embedded engine (JSON schemas for validation and serialization, the collection
 * API called directly). Both servers run side by side in this process; rounds alternate between them
 * so machine noise hits both alike. We report medians and the ratio ours / baseline.
 */

import { openEmbedded } from '@fastify-mongo-crud/embedded'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import { CRUDRouter, createApp, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3)
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
const DOCS = 2000

const User = MongoModel('User', { name: Type.String(), email: Type.String(), password: Type.String(), age: Type.Integer() })
const UserOut = MongoModelOut('UserOut', { name: Type.String(), email: Type.String(), age: Type.Integer() })

async function buildOurs(db: Awaited<ReturnType<typeof openEmbedded>>): Promise<FastifyInstance> {
  const app = await createApp({ title: 'bench', version: '1' })
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db, collectionName: 'users', prefix: '/users' })
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db, collectionName: 'users', prefix: '/by-email', identifierField: 'email' })
  return app
}

/** What a careful developer writes by hand for the same routes. */
async function buildBaseline(db: Awaited<ReturnType<typeof openEmbedded>>): Promise<FastifyInstance> {
  const app = Fastify()
  const users = db.collection('users')
  await users.createIndex({ email: 1 }, { unique: true })
  const out = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, age: { type: 'integer' } } }
  const toOut = (doc: Record<string, unknown>) => ({ ...doc, id: String(doc['_id']) })
  app.get('/users/:id', { schema: { response: { 200: out, 400: { type: 'object', properties: { detail: { type: 'string' } } } } } }, async (request, reply) => {
    const { id } = request.params as { id: string }
    const doc = ObjectId.isValid(id) ? await users.findOne({ _id: new ObjectId(id) }) : null
    if (doc === null) return reply.code(400).send({ detail: 'Document not found' })
    return toOut(doc)
  })
  app.get('/by-email/:email', { schema: { response: { 200: out, 400: { type: 'object', properties: { detail: { type: 'string' } } } } } }, async (request, reply) => {
    const { email } = request.params as { email: string }
    const doc = await users.findOne({ email })
    if (doc === null) return reply.code(400).send({ detail: 'Document not found' })
    return toOut(doc)
  })
  app.get('/users', { schema: { response: { 200: { type: 'array', items: out } } } }, async (request) => {
    const q = request.query as { limit?: string, filters?: string }
    const filter = q.filters === undefined ? {} : JSON.parse(q.filters)
    return (await users.find(filter, { limit: Number(q.limit ?? 20), sort: { age: 1, _id: 1 } }).toArray()).map(toOut)
  })
  app.post('/users', {
    schema: {
      body: { type: 'object', required: ['name', 'email', 'password', 'age'], additionalProperties: false, properties: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, age: { type: 'integer' } } },
      response: { 201: out },
    },
  }, async (request, reply) => {
    const doc = { ...(request.body as object) } as Record<string, unknown>
    await users.insertOne(doc)
    return reply.code(201).send(toOut(doc))
  })
  return app
}

let created = 0

interface Scenario { name: string, request: (base: string, id: string) => autocannon.Options }

const scenarios: Scenario[] = [
  { name: 'GET one', request: (url, id) => ({ url: `${url}/users/${id}` }) },
  // Mid-collection, so a scan would walk about half of it: the unique index makes it a point read.
  { name: 'GET one by unique field', request: (url) => ({ url: `${url}/by-email/${encodeURIComponent(`u${DOCS / 2}@x`)}` }) },
  { name: 'GET list (filter, sort, limit 20)', request: (url) => ({ url: `${url}/users?limit=20&sort_by=age&filters=${encodeURIComponent('{"age":{"$gte":30}}')}` }) },
  {
    name: 'POST create',
    // A fresh email per request, as `email` has a unique index.
    request: (url) => ({
      url: `${url}/users`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: 'n', email: `e${++created}@x`, password: 'p', age: 33 }) }) }],
    }),
  },
]

async function run(options: autocannon.Options): Promise<number> {
  const result = await autocannon({ connections: 10, duration: SECONDS, ...options })
  // A scenario answering errors would measure the error path: say so rather than report it.
  if (result.non2xx > 0 || result.errors > 0) console.warn(`  ${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  return result.requests.average
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function benchThroughput(): Promise<void> {
  const ourDb = await openEmbedded()
  const baseDb = await openEmbedded()
  let firstId = ''
  for (const db of [ourDb, baseDb]) {
    const users = db.collection('users')
    for (let i = 0; i < DOCS; i++) {
      const { insertedId } = await users.insertOne({ name: `user ${i}`, email: `u${i}@x`, password: 'p', age: i % 80 })
      if (i === 0 && db === ourDb) firstId = String(insertedId)
    }
  }
  const baseFirst = String((await baseDb.collection('users').findOne({ email: 'u0@x' }))?.['_id'])
  const ours = await buildOurs(ourDb)
  const baseline = await buildBaseline(baseDb)
  const ourUrl = await ours.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = await baseline.listen({ port: 0, host: '127.0.0.1' })

  console.log(`\n## Throughput: ${ROUNDS} alternating rounds of ${SECONDS}s, 10 connections, ${DOCS} documents`)
  console.log('| scenario | fastify-mongo-crud req/s (median) | hand-written baseline req/s (median) | ratio |')
  console.log('|---|---|---|---|')
  for (const scenario of scenarios) {
    const mine: number[] = []
    const theirs: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      mine.push(await run(scenario.request(ourUrl, firstId)))
      theirs.push(await run(scenario.request(baseUrl, baseFirst)))
    }
    const m = median(mine)
    const b = median(theirs)
    console.log(`| ${scenario.name} | ${m.toFixed(0)} | ${b.toFixed(0)} | ${(m / b).toFixed(2)} |`)
  }
  await ours.close()
  await baseline.close()
  await ourDb.close()
  await baseDb.close()
}
