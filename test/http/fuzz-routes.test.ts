import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { type App, buildApp, type TestApp } from '../harness/app.ts'
import { BadInputs, type FuzzPools, type FuzzRequest, type RouteShape } from '../harness/bad-inputs.ts'
import { Note, User, UserOut } from '../harness/models.ts'
import { Address, Artist, ArtistOut, Author, Label, LabelOut, Message, Track, TrackOut } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore, type StoreMode } from '../harness/stores.ts'

/**
 * Every route of every kind (a plain collection, a scoped one, one with an identifier field, populated
 * references, lookup children, embedded items; lists, groups, the change feed, GET one, writes,
 * batches), walked from the app's OpenAPI document and sent seeded bad input: missing, empty and
 * malformed bodies, wrong and missing Content-Types, bad ids, odd query strings and headers, huge
 * numbers, deep arrays, unicode, prototype keys. Whatever the input: never a 5xx; every 4xx is JSON with
 * a `detail` (a string, or the contract's validation list); nothing stored changes unless a write
 * succeeded; no answer holds a hidden value; no prototype is polluted. After each write that succeeded,
 * the seeded documents are put back, so every request meets the same data.
 * Reproduce a failure with `ROUTE_FUZZ_SEED=<seed> node --import tsx --test test/http/fuzz-routes.test.ts`
 * (`ROUTE_FUZZ_CASES` sends more cases per route).
 */
const SEED = Number(process.env['ROUTE_FUZZ_SEED'] ?? 0x0f0_2032)
const CASES_PER_ROUTE = Number(process.env['ROUTE_FUZZ_CASES'] ?? 10)
/**
 * Requests parse and validate alike on every store, so the memory store gets them all; disk and the
 * driver add their own translations (ids, BSON, errors) and get a third (the same first ones). A change
 * feed the driver serves answers in about a second: all of them there would take minutes.
 */
const casesPerRoute = (mode: StoreMode) => (mode.name === 'embedded-memory' ? CASES_PER_ROUTE : Math.ceil(CASES_PER_ROUTE / 3))
/** `ROUTE_FUZZ_TRACE=1` prints each request and its answer; `ROUTE_FUZZ_STORE=<mode name>` runs on that store only. */
const TRACE = process.env['ROUTE_FUZZ_TRACE'] === '1'
const ONLY_STORE = process.env['ROUTE_FUZZ_STORE']

const Code = MongoModel('FuzzCode', { code: Type.String(), label: Type.Optional(Type.String()), rank: Type.Optional(Type.Integer()) })
const Rich = MongoModel('FuzzRich', {
  name: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  address: Type.Optional(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })),
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  when: Type.Optional(Type.String({ format: 'date-time' })),
  ownerId: Type.Optional(ObjectIdField()),
  secret: Type.Optional(Type.String()),
})
const RichOut = MongoModelOut('FuzzRichOut', {
  name: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  address: Type.Optional(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })),
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  when: Type.Optional(Type.String({ format: 'date-time' })),
  ownerId: Type.Optional(ObjectIdField()),
})

/** Fixed ids and keys: the same seed sends the same requests to the same data. */
const hex = (n: number) => `6500000000000000000000${n.toString(16).padStart(2, '0')}`
const fixed = { etagKey: 'fuzz-routes-etag-key-of-32-characters!!', cursorSecret: 'fuzz-routes-cursor-secret-of-32-characters' }
const COLLECTIONS = ['users', 'rich', 'notes', 'codes', 'tracks', 'artists', 'labels', 'authors', 'messages']

const routers = [
  { model: User, modelOut: UserOut, collectionName: 'users', prefix: '/users', ...fixed },
  { model: Rich, modelOut: RichOut, collectionName: 'rich', prefix: '/rich', ...fixed },
  { model: Note, collectionName: 'notes', prefix: '/notes', filterDependency: (request: { headers: Record<string, unknown> }) => ({ owner: String(request.headers['x-user'] ?? 'ann') }), filtersUnderScope: 'and' as const, clientIdsUnderScope: 'allow' as const, ...fixed },
  { model: Code, collectionName: 'codes', prefix: '/codes', identifierField: 'code', ...fixed },
  {
    model: Track,
    modelOut: TrackOut,
    collectionName: 'tracks',
    prefix: '/tracks',
    populates: [new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist, modelOut: ArtistOut }), new CRUDPopulate({ field: 'labelId', collection: 'labels', model: Label, modelOut: LabelOut })],
    ...fixed,
  },
  {
    model: Author,
    collectionName: 'authors',
    prefix: '/authors',
    lookups: [new CRUDLookup({ model: Message, collectionName: 'messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })],
    embeds: [new CRUDEmbed({ model: Address, embedName: 'addresses' })],
    ...fixed,
  },
]

/** Seeds every collection with client-chosen ids; answers the pools the inputs start from. */
async function seed(t: TestApp): Promise<FuzzPools> {
  const { app, store } = t
  // Every value an output model hides starts with SECRET: no answer that succeeded may hold one.
  await store.db.collection('artists').insertOne({ _id: new ObjectId(hex(0x51)), name: 'nina', secret: 'SECRET-artist' })
  await store.db.collection('labels').insertOne({ _id: new ObjectId(hex(0x61)), name: 'blue', secret: 'SECRET-label' })
  const samples = {
    users: { name: 'ann', email: 'ann@example.com', password: 'SECRET-pw', age: 30, city: 'Oslo', managerId: hex(1) },
    rich: { name: 'r', tags: ['a', 'b'], address: { city: 'Rome', zip: '1' }, meta: { k: 1 }, when: '2024-01-02T03:04:05.000Z', ownerId: hex(1), secret: 'SECRET-rich' },
    notes: { title: 't', owner: 'ann' },
    codes: { code: 'alpha', label: 'A', rank: 1 },
    tracks: { title: 'song', artistIds: [hex(0x51)], labelId: hex(0x61) },
    authors: { name: 'ada' },
    messages: { text: 'hi', rank: 1 },
    addresses: { street: 's', city: 'Rome', zip: '1' },
  }
  for (const n of [1, 2, 3]) await createDoc(app, '/users', { ...samples.users, id: hex(n), name: `user${n}` })
  for (const n of [4, 5]) await createDoc(app, '/rich', { ...samples.rich, id: hex(n) })
  await createDoc(app, '/notes', { ...samples.notes, id: hex(6) }, { 'x-user': 'ann' })
  await createDoc(app, '/notes', { ...samples.notes, id: hex(7), owner: 'bob' }, { 'x-user': 'bob' })
  // Created through the store, so that their `_id`, and so their tags, are the same on every run.
  for (const [n, code] of [[0x20, 'alpha'], [0x21, 'beta']] as const) await store.db.collection('codes').insertOne({ _id: new ObjectId(hex(n)), ...samples.codes, code })
  for (const n of [8, 9]) await createDoc(app, '/tracks', { ...samples.tracks, id: hex(n) })
  for (const n of [10, 11]) await createDoc(app, '/authors', { name: `a${n}`, id: hex(n) })
  // A lookup child's create chooses its own id: these are stored as it stores them, with ids of ours.
  for (const [n, author] of [[12, 10], [13, 10], [14, 11]] as const) {
    await store.db.collection('messages').insertOne({ _id: new ObjectId(hex(n)), ...samples.messages, authorId: new ObjectId(hex(author)) })
  }
  for (const [n, author] of [[15, 10], [16, 11]] as const) await createDoc(app, `/authors/${hex(author)}/addresses`, { ...samples.addresses, id: hex(n) })
  const etags: string[] = []
  for (const url of [`/users/${hex(1)}`, `/codes/alpha`, `/authors/${hex(10)}/messages/${hex(12)}`, `/authors/${hex(10)}/addresses/${hex(15)}`]) {
    etags.push(String((await app.inject({ url })).headers.etag))
  }
  const cursors: string[] = []
  for (const url of ['/users?limit=1', `/authors/${hex(10)}/messages?limit=1`]) {
    const next = /[?&]cursor=([^&>]+)/.exec(String((await app.inject({ url })).headers.link))
    if (next !== null) cursors.push(decodeURIComponent(next[1]!))
  }
  const ids = {
    users: [hex(1), hex(2), hex(3)],
    rich: [hex(4), hex(5)],
    notes: [hex(6), hex(7)],
    codes: ['alpha', 'beta', 'gamma'],
    tracks: [hex(8), hex(9)],
    authors: [hex(10), hex(11)],
    messages: [hex(12), hex(13), hex(14)],
    addresses: [hex(15), hex(16)],
  }
  return { ids, samples, etags, cursors }
}

/** Every operation of the app's OpenAPI document. */
async function routesOf(app: App): Promise<RouteShape[]> {
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const routes: RouteShape[] = []
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters ?? []) as Array<{ in: string, name: string }>
      routes.push({
        method,
        path,
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
        bodyTypes: Object.keys(operation.requestBody?.content ?? {}),
      })
    }
  }
  return routes
}

type Stored = Map<string, Record<string, unknown>[]>

/** Every collection's documents as the database holds them. */
async function rawDocuments(t: TestApp): Promise<Stored> {
  return new Map(await Promise.all(COLLECTIONS.map(async (name) => [name, await t.store.db.collection(name).find({}).toArray()] as const)))
}

/** Puts `raw` back: after a write that succeeded, the next requests start from the seeded documents again. */
async function restore(t: TestApp, raw: Stored): Promise<void> {
  for (const [name, docs] of raw) {
    const collection = t.store.db.collection(name)
    await collection.deleteMany({})
    for (const doc of docs) await collection.insertOne(doc)
  }
}

/** Every stored document, in a stable order: what a refused request must leave as it was. */
async function stored(t: TestApp): Promise<string> {
  const all: string[] = []
  for (const name of COLLECTIONS) {
    const docs = (await t.store.db.collection(name).find({}).toArray()).map((doc) => JSON.stringify(doc)).sort()
    all.push(`${name}: ${docs.join('\n')}`)
  }
  return all.join('\n')
}

interface Answer {
  status: number
  contentType: string
  body: string
}

/**
 * Sends one request. The change feed never ends, so it goes over real HTTP and is closed once its
 * status is in; every other route through `inject`.
 */
async function send(app: App, request: FuzzRequest): Promise<Answer> {
  if (!/\/_events(?:\?|$)/.test(request.url)) {
    const res = await app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, ...(request.payload === undefined ? {} : { payload: request.payload }) })
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body }
  }
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('the app must listen on a port')
  return new Promise((resolve, reject) => {
    // A body's length is sent as inject sends it: without it, Node sends a GET's body as the next request.
    const length = request.payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.payload)) }
    const req = httpRequest({ host: '127.0.0.1', port: address.port, method: request.method, path: request.url, headers: { ...request.headers, ...length } }, (response) => {
      const answer = { status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? '') }
      if (request.method === 'HEAD' || (answer.status === 200 && answer.contentType.startsWith('text/event-stream'))) {
        req.destroy()
        resolve({ ...answer, body: '' })
        return
      }
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        body += chunk
      })
      response.on('end', () => resolve({ ...answer, body }))
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end(request.payload)
  })
}

const wrote = (request: FuzzRequest, answer: Answer) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method) && answer.status >= 200 && answer.status < 300

/** What is wrong with an answer, if anything. */
function problemOf(request: FuzzRequest, answer: Answer, changed: boolean): string | undefined {
  if (answer.status >= 500) return 'server error'
  if (changed && !wrote(request, answer)) return `stored documents changed on a ${answer.status}`
  if (answer.status < 400) return answer.body.includes('SECRET') ? 'a hidden value in the answer' : undefined
  if (request.method === 'HEAD') return undefined
  if (!/^application\/json/.test(answer.contentType)) return `a ${answer.status} that is not JSON`
  let body: Json
  try {
    body = JSON.parse(answer.body)
  } catch {
    return 'unparsable JSON'
  }
  const detail = body?.detail
  if (typeof detail === 'string') return undefined
  const issue = (entry: Json) => Array.isArray(entry?.loc) && typeof entry.msg === 'string' && typeof entry.type === 'string'
  if (Array.isArray(detail) && detail.length > 0 && detail.every(issue)) return undefined
  return `a ${answer.status} without a detail`
}

interface Failure {
  case: number
  request: string
  problem: string
  status: number
  body: string
}

/** A request that never gets an answer is a failure of its own, not a hung test. */
async function answerWithin(answer: Promise<Answer>, ms: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Answer>((resolve) => {
    timer = setTimeout(() => resolve({ status: 599, contentType: '', body: `no answer within ${ms} ms` }), ms)
  })
  try {
    return await Promise.race([answer, late])
  } finally {
    clearTimeout(timer)
  }
}

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 300)} ${request.payload === undefined ? '(no body)' : request.payload.slice(0, 300)}`

describeEachStore(`fuzz: every route, bad requests [seed ${SEED}]`, (mode) => {
  if (ONLY_STORE !== undefined && mode.name !== ONLY_STORE) return
  const cases = casesPerRoute(mode)
  let t: TestApp
  let pools: FuzzPools
  let routes: RouteShape[]
  before(async () => {
    t = await buildApp(mode, ...routers)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    pools = await seed(t)
    routes = await routesOf(t.app)
  })
  after(() => t.close())

  it(`never answers 5xx, answers every 4xx with a detail, changes nothing it refuses (${cases} per route, seed ${SEED})`, async () => {
    // Every kind of route is walked, or the fuzzer proves less than it claims.
    const walked = new Set(routes.map((route) => `${route.method} ${route.path}`))
    for (const route of ['get /users', 'patch /codes/{code}', 'get /tracks/{id}', 'get /notes/_events', 'post /rich/_batch', 'put /authors/{id}/messages/{child_id}', 'post /authors/{id}/messages/_batch', 'patch /authors/{id}/addresses/{embed_id}', 'get /authors/{id}/addresses/_groups']) {
      assert.ok(walked.has(route), `the OpenAPI document has no ${route}`)
    }
    const inputs = new BadInputs(SEED, pools)
    const failures: Failure[] = []
    const statuses = new Map<number, number>()
    const seeded = await rawDocuments(t)
    let before = await stored(t)
    for (let i = 0; i < routes.length * cases; i++) {
      const request = inputs.request(routes[i % routes.length]!)
      const started = performance.now()
      if (TRACE) console.log(i, describeRequest(request))
      const answer = await answerWithin(send(t.app, request), 10_000)
      const now = await stored(t)
      if (TRACE) console.log(i, answer.status, Math.round(performance.now() - started), 'ms', answer.contentType, answer.body.slice(0, 200))
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
      const problem = problemOf(request, answer, now !== before)
      before = now
      if (wrote(request, answer)) {
        await restore(t, seeded)
        before = await stored(t)
      }
      if (problem !== undefined && failures.length < 20) failures.push({ case: i, request: describeRequest(request), problem, status: answer.status, body: answer.body.slice(0, 300) })
    }
    assert.deepEqual(failures, [], `seed ${SEED} (ROUTE_FUZZ_SEED=${SEED} to replay): ${failures.length} failing case(s)`)
    assertNoPollution()
    // The mix must reach past the first check of the routes sometimes, or the fuzzer proves nothing.
    const count = (test: (status: number) => boolean) => [...statuses].filter(([status]) => test(status)).reduce((sum, [, n]) => sum + n, 0)
    const total = routes.length * cases
    assert.ok(count((s) => s >= 200 && s < 300) >= total / 10, `too few accepted requests: ${JSON.stringify([...statuses])}`)
    assert.ok(count((s) => s >= 400) >= total / 3, `too few refused requests: ${JSON.stringify([...statuses])}`)
    const alive = await t.app.inject({ url: '/users' })
    assert.equal(alive.statusCode, 200, alive.body)
  })
})

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>
  for (const key of ['polluted', 'prototype', 'a', 'k']) assert.equal(probe[key], undefined, `Object.prototype.${key} was planted`)
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).filter((key) => ['polluted', 'prototype'].includes(key)), [])
}
