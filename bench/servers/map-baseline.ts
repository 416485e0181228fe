/**
 * Baseline (a): the CRUD a developer writes by hand in a few lines with Fastify over an in-memory
 * Map, not durable, without schemas. Lists filter and sort the whole Map on every request, as such
 * a server does. It speaks the router's list grammar (`limit`, `skip`, `sort_by`, `filters` as JSON)
 * so that every system of the benchmark answers the very same URLs.
 * Prints `LISTENING <url>` once ready.
 */
import Fastify from 'fastify'

type User = Record<string, unknown> & { id: string }

const users = new Map<string, User>()
let nextId = 1

const COMPARE: Record<string, (a: unknown, b: unknown) => boolean> = {
  $eq: (a, b) => a === b,
  $ne: (a, b) => a !== b,
  $gt: (a, b) => (a as number) > (b as number),
  $gte: (a, b) => (a as number) >= (b as number),
  $lt: (a, b) => (a as number) < (b as number),
  $lte: (a, b) => (a as number) <= (b as number),
}

/** `{ field: value }` or `{ field: { $op: value } }`, as one predicate per condition. */
function toPredicates(filters: string | undefined): ((user: User) => boolean)[] {
  if (filters === undefined) return []
  const predicates: ((user: User) => boolean)[] = []
  for (const [field, condition] of Object.entries(JSON.parse(filters) as Record<string, unknown>)) {
    if (typeof condition !== 'object' || condition === null) predicates.push((user) => user[field] === condition)
    else for (const [op, value] of Object.entries(condition)) predicates.push((user) => COMPARE[op]!(user[field], value))
  }
  return predicates
}

const app = Fastify()

app.get('/users', async (request) => {
  const query = request.query as { limit?: string, skip?: string, sort_by?: string, filters?: string }
  let rows = [...users.values()]
  for (const predicate of toPredicates(query.filters)) rows = rows.filter(predicate)
  const field = query.sort_by
  if (field !== undefined) rows.sort((a, b) => ((a[field] as number) > (b[field] as number) ? 1 : (a[field] as number) < (b[field] as number) ? -1 : 0))
  const skip = Number(query.skip ?? 0)
  return rows.slice(skip, query.limit === undefined ? undefined : skip + Number(query.limit))
})

app.get('/users/:id', async (request, reply) => users.get((request.params as { id: string }).id) ?? reply.code(404).send({ detail: 'Document not found' }))

app.post('/users', async (request, reply) => {
  const user = { ...(request.body as object), id: String(nextId++) }
  users.set(user.id, user)
  return reply.code(201).send(user)
})

app.patch('/users/:id', async (request, reply) => {
  const current = users.get((request.params as { id: string }).id)
  if (current === undefined) return reply.code(404).send({ detail: 'Document not found' })
  const user = { ...current, ...(request.body as object), id: current.id }
  users.set(user.id, user)
  return user
})

// Nothing to index: the baseline scans its Map whatever the benchmark asks.
app.post('/__bench/index', async () => ({ indexed: false }))

const url = await app.listen({ port: 0, host: '127.0.0.1' })
console.log(`LISTENING ${url}`)
