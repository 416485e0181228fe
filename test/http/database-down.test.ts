// The database out of reach (its server stopped, restarting, a closed client or engine) is 503 with
// `Retry-After` on every route, answered within the driver's server selection bound, and the same app
// serves again once the database is back, without a restart (docs/http-contract.md). Here the database
// is the engine behind its wire server, reached through the official driver: stopping the server and
// starting it again on the same port and data directory is a database restart as the driver sees one.
// Every wait is on a condition (a response, a stream's end, a bounded number of attempts), never on time.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '@fastify-mongo-crud/embedded'
import type { LightMyRequestResponse } from 'fastify'
import { CRUDRouter, createApp } from 'fastify-mongo-crud'
import { type Db, MongoClient } from 'mongodb'
import type { App } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { logCapture } from '../harness/log-capture.ts'
import { aliceInput, User } from '../harness/models.ts'
import { createDoc, type Json } from '../harness/seed.ts'

const UNAVAILABLE = 'The database cannot be reached (it is down, restarting or out of reach): retry in a moment'
const WRITE_OUTCOME_UNKNOWN =
  'The database could not be reached while this write ran: whether it was stored is not known. Retry in a moment; with If-Match (or, for a create with its id, If-None-Match: *) a retry applies it at most once'
/** What the router tells a client refused by an unreachable database to wait, in seconds. */
const RETRY_AFTER = '5'
/**
 * The test's own bound on the driver's server selection: a request while the database is down waits
 * at most this long before its 503 (the requests run together, so the test waits it about once).
 */
const SELECTION_MS = 1_000
/** Requests sent after the database is back before one must succeed (the driver reconnects on the first). */
const RECONNECT_ATTEMPTS = 5

interface Route {
  name: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  payload?: Record<string, unknown>
  headers?: Record<string, string>
  /** A write that may reach the database: refused, it says its outcome is unknown. */
  write?: true
  /** Its status once the database is back. */
  ok: number
}

/** One request of every kind the router answers. */
function everyRoute(id: string): Route[] {
  return [
    { name: 'list (streamed)', method: 'GET', url: '/users', ok: 200 },
    { name: 'list (a page)', method: 'GET', url: '/users?limit=10', ok: 200 },
    { name: 'count', method: 'GET', url: '/users?limit=10', headers: { prefer: 'count=exact' }, ok: 200 },
    { name: 'get', method: 'GET', url: `/users/${id}`, ok: 200 },
    { name: 'groups', method: 'GET', url: '/users/_groups?by=city', ok: 200 },
    { name: 'create', method: 'POST', url: '/users', payload: { ...aliceInput, name: 'carol' }, write: true, ok: 201 },
    { name: 'replace', method: 'PUT', url: `/users/${id}`, payload: { ...aliceInput, name: 'alicia' }, write: true, ok: 200 },
    { name: 'patch', method: 'PATCH', url: `/users/${id}`, payload: { city: 'Oslo' }, write: true, ok: 200 },
    // An atomic batch's transaction never commits: nothing of it is stored, whatever its writes met.
    { name: 'batch (atomic)', method: 'POST', url: '/users/_batch', payload: { operations: [{ op: 'update', id, body: { city: 'Rome' } }] }, ok: 200 },
    { name: 'batch (not atomic)', method: 'POST', url: '/users/_batch', payload: { atomic: false, operations: [{ op: 'update', id, body: { city: 'Rome' } }] }, write: true, ok: 200 },
    { name: 'delete', method: 'DELETE', url: `/users/${id}`, write: true, ok: 204 },
  ]
}

function send(app: App, { method, url, payload, headers }: Route): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, ...(payload === undefined ? {} : { payload }), ...(headers === undefined ? {} : { headers }) })
}

function assertUnavailable(res: LightMyRequestResponse, detail: string, name: string): void {
  assert.equal(res.statusCode, 503, `${name}: ${res.statusCode} ${res.body}`)
  assert.deepEqual(res.json(), { detail }, name)
  assert.equal(res.headers['retry-after'], RETRY_AFTER, name)
}

describe('the database out of reach, behind the official driver', { timeout: 120_000 }, () => {
  let dir: string
  let engine: EmbeddedDb
  let server: WireServer | undefined
  let port: number
  let client: MongoClient
  let app: App
  let alice: Json
  const log = logCapture()

  /** The database down: its server stops and its engine closes (a stopped mongod). */
  async function stopDatabase(): Promise<void> {
    await server?.close()
    server = undefined
    await engine.close()
  }
  /** The database back on the same port and data directory (a restarted mongod). */
  async function startDatabase(): Promise<void> {
    engine = await openEmbedded({ path: dir })
    server = await startWireServer(engine, { port })
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-down-'))
    engine = await openEmbedded({ path: dir })
    server = await startWireServer(engine)
    port = server.port
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: SELECTION_MS })
    await client.connect()
    app = await createApp({ title: 'Database down', version: '1.0.0', fastify: { logger: { level: 'error', stream: log.stream } } })
    await app.register(CRUDRouter, { model: User, collectionName: 'users', prefix: '/users', db: client.db('test') })
    await app.listen({ port: 0, host: '127.0.0.1' })
    alice = await createDoc(app, '/users', aliceInput)
  })
  after(async () => {
    await app.close()
    await client.close()
    await stopDatabase()
    await rm(dir, { recursive: true, force: true })
  })

  it('answers 503 with Retry-After on every route while it is down, and cuts an open _events feed', async (t) => {
    const feed = await EventStreamClient.open(app, '/users/_events')
    assert.equal(feed.status, 200)
    await stopDatabase()
    const started = performance.now()
    const routes = everyRoute(alice.id)
    const answers = await Promise.all(routes.map((route) => send(app, route)))
    t.diagnostic(`${routes.length} requests answered 503 together in ${Math.round(performance.now() - started)} ms (server selection bound ${SELECTION_MS} ms)`)
    for (const [index, route] of routes.entries()) assertUnavailable(answers[index]!, route.write ? WRITE_OUTCOME_UNKNOWN : UNAVAILABLE, route.name)

    // The feed that was open ends (its client resumes with Last-Event-ID once the database is back);
    // one asked for once it has ended finds no feed of the router's to join, and is refused.
    await feed.ended
    const events = await app.inject({ method: 'GET', url: '/users/_events' })
    assertUnavailable(events, UNAVAILABLE, '_events')
    // Each refusal is logged, with the code of the catalog.
    assert.ok(log.lines.some((line) => line.err?.code === 'FMC_ERR_STORE_UNAVAILABLE'), JSON.stringify(log.lines.slice(0, 2)))
  })

  it('serves again once the database is back, without restarting the app', async (t) => {
    await startDatabase()
    const started = performance.now()
    let attempts = 0
    let first: LightMyRequestResponse | undefined
    while (attempts < RECONNECT_ATTEMPTS && first?.statusCode !== 200) {
      attempts++
      first = await app.inject({ method: 'GET', url: `/users/${alice.id}` })
    }
    t.diagnostic(`the first request answered 200 after ${attempts} attempt(s), ${Math.round(performance.now() - started)} ms after the database was back`)
    assert.equal(first?.statusCode, 200, JSON.stringify(log.lines.at(-1)))

    const feed = await EventStreamClient.open(app, '/users/_events')
    assert.equal(feed.status, 200)
    for (const route of everyRoute(alice.id)) {
      const res = await send(app, route)
      assert.equal(res.statusCode, route.ok, `${route.name}: ${res.body}`)
    }
    // The feed opened after the restart tells the writes made since (the create comes first).
    const [created] = await feed.take(1)
    assert.equal(created?.event, 'create')
    assert.equal(created?.data.document.name, 'carol')
  })

  it('says a write cut off mid-way may or may not be stored', async () => {
    const bob = await createDoc(app, '/users', { ...aliceInput, name: 'bob' })
    const admin = (client.db('test') as Db).admin()
    // The connection closes as each write arrives: the driver cannot know whether it ran.
    await admin.command({ configureFailPoint: 'failCommand', mode: 'alwaysOn', data: { failCommands: ['insert', 'update', 'findAndModify', 'delete'], closeConnection: true } })
    try {
      const writes = [
        { name: 'create', method: 'POST' as const, url: '/users', payload: { ...aliceInput, name: 'dave' } },
        { name: 'replace', method: 'PUT' as const, url: `/users/${bob.id}`, payload: { ...aliceInput, name: 'robert' } },
        { name: 'patch', method: 'PATCH' as const, url: `/users/${bob.id}`, payload: { city: 'Oslo' } },
        { name: 'delete', method: 'DELETE' as const, url: `/users/${bob.id}` },
      ]
      for (const write of writes) assertUnavailable(await app.inject(write), WRITE_OUTCOME_UNKNOWN, write.name)
      // A read meets no closed connection, and answers.
      assert.equal((await app.inject({ method: 'GET', url: `/users/${bob.id}` })).statusCode, 200)
    } finally {
      await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })
    }
  })

  it('stops a batch that is not atomic at the operation that lost the database, and runs none after it', async () => {
    const [ann, bob] = [await createDoc(app, '/users', { ...aliceInput, name: 'ann' }), await createDoc(app, '/users', { ...aliceInput, name: 'bob' })]
    const admin = (client.db('test') as Db).admin()
    // The delete's connection closes as it arrives; the update before it runs.
    await admin.command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['delete'], closeConnection: true } })
    const operations = [{ op: 'update', id: ann.id, body: { city: 'Oslo' } }, { op: 'delete', id: bob.id }, { op: 'update', id: bob.id, body: { city: 'Rome' } }]
    const res = await app.inject({ method: 'POST', url: '/users/_batch', payload: { atomic: false, operations } })
    assert.equal(res.statusCode, 200, res.body)
    const results = res.json().results as Json[]
    assert.deepEqual(results.map((result) => result.status), [200, 503, 503])
    assert.equal(results[0].body.city, 'Oslo')
    assert.deepEqual(results.slice(1), [{ status: 503, detail: WRITE_OUTCOME_UNKNOWN }, { status: 503, detail: 'Not run: an earlier operation of this batch found the database out of reach' }])
    // The operation after it did not run; the one it stopped at did not either (the connection closed first).
    const stored = await app.inject({ method: 'GET', url: `/users/${bob.id}` })
    assert.equal(stored.statusCode, 200)
    assert.equal(stored.json().city, undefined)
  })

  it('answers 503 to requests on connections the stop cut while nothing ran on them', async () => {
    // Each request runs alone on a connection that was idle when the database stopped: the driver learns
    // of the stop from the write to it, and lets out Node's own error (`write ECONNRESET`).
    await Promise.all([1, 2, 3].map(() => app.inject({ method: 'GET', url: '/users?limit=1' })))
    await stopDatabase()
    for (const route of everyRoute(alice.id)) assertUnavailable(await send(app, route), route.write ? WRITE_OUTCOME_UNKNOWN : UNAVAILABLE, route.name)
  })
})

describe('the embedded engine closed under the app', () => {
  it('answers 503 with Retry-After, as a database out of reach', async () => {
    const db = await openEmbedded()
    const app = await createApp({ title: 'Engine closed', version: '1.0.0', fastify: { logger: false } })
    try {
      await app.register(CRUDRouter, { model: User, collectionName: 'users', prefix: '/users', db })
      const alice = await createDoc(app, '/users', aliceInput)
      await db.close()
      // Nothing reached a closed engine: a write is known not to be stored.
      for (const route of everyRoute(alice.id)) assertUnavailable(await send(app, route), UNAVAILABLE, route.name)
      assertUnavailable(await app.inject({ method: 'GET', url: '/users/_events' }), UNAVAILABLE, '_events')
    } finally {
      await app.close()
      await db.close()
    }
  })
})
