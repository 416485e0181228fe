/**
 * Baseline (d): what a careful developer writes by hand with Fastify and the official driver, against
 * the engine's wire server at BENCH_WIRE_URI (database BENCH_DB): JSON schemas for the body and the
 * answers, the driver called directly. Same URLs as the router (`limit`, `skip`, `sort_by`,
 * `filters` as JSON). `POST /__bench/index` creates the index on `age`.
 * Prints `LISTENING <url>` once ready.
 */
import Fastify from 'fastify'
import { MongoClient, ObjectId, type WithId } from 'mongodb'

const client = new MongoClient(process.env['BENCH_WIRE_URI']!, { maxPoolSize: 50 })
await client.connect()
const users = client.db(process.env['BENCH_DB'] ?? 'driver').collection('users')

const properties = { name: { type: 'string' }, email: { type: 'string' }, age: { type: 'integer' }, city: { type: 'string' }, created_at: { type: 'string' } }
const userOut = { type: 'object', properties: { id: { type: 'string' }, ...properties } }
const notFound = { type: 'object', properties: { detail: { type: 'string' } } }
const toOut = ({ _id, ...rest }: WithId<Record<string, unknown>>) => ({ id: _id.toHexString(), ...rest })
const idOf = (request: { params: unknown }) => {
  const { id } = request.params as { id: string }
  return ObjectId.isValid(id) ? new ObjectId(id) : undefined
}

const app = Fastify()

app.get('/users/:id', { schema: { response: { 200: userOut, 404: notFound } } }, async (request, reply) => {
  const id = idOf(request)
  const doc = id === undefined ? null : await users.findOne({ _id: id })
  return doc === null ? reply.code(404).send({ detail: 'Document not found' }) : toOut(doc)
})

app.get('/users', { schema: { response: { 200: { type: 'array', items: userOut } } } }, async (request) => {
  const query = request.query as { limit?: string, skip?: string, sort_by?: string, filters?: string }
  const filter = query.filters === undefined ? {} : JSON.parse(query.filters)
  const cursor = users.find(filter)
  if (query.sort_by !== undefined) cursor.sort({ [query.sort_by]: 1, _id: 1 })
  if (query.skip !== undefined) cursor.skip(Number(query.skip))
  if (query.limit !== undefined) cursor.limit(Number(query.limit))
  return (await cursor.toArray()).map(toOut)
})

const body = { type: 'object', additionalProperties: false, properties }
app.post('/users', { schema: { body: { ...body, required: Object.keys(properties) }, response: { 201: userOut } } }, async (request, reply) => {
  const doc = { ...(request.body as Record<string, unknown>) }
  const { insertedId } = await users.insertOne(doc)
  return reply.code(201).send({ id: insertedId.toHexString(), ...doc })
})

app.patch('/users/:id', { schema: { body, response: { 200: userOut, 404: notFound } } }, async (request, reply) => {
  const id = idOf(request)
  const doc = id === undefined ? null : await users.findOneAndUpdate({ _id: id }, { $set: request.body as Record<string, unknown> }, { returnDocument: 'after' })
  return doc === null ? reply.code(404).send({ detail: 'Document not found' }) : toOut(doc)
})

app.post('/__bench/index', async () => ({ indexed: await users.createIndex({ age: 1 }) }))

const url = await app.listen({ port: 0, host: '127.0.0.1' })
console.log(`LISTENING ${url}`)
