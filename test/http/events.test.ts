import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it, mock } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyRequest } from 'fastify'
import { CRUDLookup, type DriverDb, HTTPException, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { buildApp, buildAppWith, filtersQuery, type RouterOptions, type TestApp } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { expectDetailMentioning } from '../harness/expect.ts'
import { createDoc } from '../harness/seed.ts'
import { describeEachStore, type StoreMode, storeModes } from '../harness/stores.ts'

/**
 * GET <prefix>/_events (docs/events.md): every write told live as a server-sent event, shaped by the
 * output model, narrowed by filters and the scope, resumable with Last-Event-ID. Each test waits for
 * events, never for time.
 */
const Task = MongoModel('EventTask', { title: Type.String(), owner: Type.String(), role: Type.String(), secret: Type.Optional(Type.String()) })
const { secret: _hidden, ...shown } = Task.properties
const TaskOut = MongoModelOut('EventTaskOut', { ...shown, id: Type.String() })
const Note = MongoModel('EventNote', { text: Type.String(), taskId: ObjectIdField() })
const byUser = async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) })

const tasks: RouterOptions = {
  model: Task,
  modelOut: TaskOut,
  collectionName: 'tasks',
  prefix: '/tasks',
  lookups: [new CRUDLookup({ model: Note, collectionName: 'notes', prefix: 'notes', localField: '_id', foreignField: 'taskId' })],
}
const notes: RouterOptions = { model: Note, collectionName: 'notes', prefix: '/notes' }
const mine: RouterOptions = { model: Task, modelOut: TaskOut, collectionName: 'tasks', prefix: '/mine', name: 'myTasks', filterDependency: byUser }

async function listening(t: TestApp): Promise<TestApp> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return t
}

describeEachStore('GET _events', (mode) => {
  let t: TestApp
  before(async () => {
    t = await listening(await buildApp(mode, tasks, notes, mine))
  })
  after(() => t.close())

  it('tells each create, update, replace and delete, shaped by the output model', async () => {
    const feed = await EventStreamClient.open(t.app, '/tasks/_events')
    assert.equal(feed.status, 200)
    assert.match(String(feed.headers['content-type']), /^text\/event-stream/)
    const created = await createDoc(t.app, '/tasks', { title: 'a', owner: 'alice', role: 'admin', secret: 's1' })
    const id = created.id
    assert.equal((await t.app.inject({ method: 'PATCH', url: `/tasks/${id}`, payload: { title: 'b' } })).statusCode, 200)
    // A PUT keeps the fields the model does not declare: to the database it is an update.
    assert.equal((await t.app.inject({ method: 'PUT', url: `/tasks/${id}`, payload: { title: 'c', owner: 'alice', role: 'admin', secret: 's2' } })).statusCode, 200)
    // A whole-document replacement by another writer is a replace.
    const raw = t.store.db.collection('tasks') as unknown as { replaceOne(filter: object, doc: object): Promise<unknown> }
    await raw.replaceOne({ _id: new ObjectId(id) }, { title: 'd', owner: 'alice', role: 'admin', secret: 's3' })
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/tasks/${id}` })).statusCode, 204)
    const events = await feed.take(5)
    assert.deepEqual(events.map((event) => event.event), ['create', 'update', 'update', 'replace', 'delete'])
    assert.deepEqual(events[0]!.data, { id, document: { id, title: 'a', owner: 'alice', role: 'admin' } })
    assert.deepEqual(events[1]!.data.document, { id, title: 'b', owner: 'alice', role: 'admin' })
    assert.deepEqual(events[2]!.data.document, { id, title: 'c', owner: 'alice', role: 'admin' })
    assert.deepEqual(events[3]!.data.document, { id, title: 'd', owner: 'alice', role: 'admin' })
    assert.deepEqual(events[4]!.data, { id })
    assert.equal(new Set(events.map((event) => event.id)).size, 5, 'each event has its own id')
    assert.doesNotMatch(feed.text, /secret|s1|s2|s3/, 'a hidden field never appears')
    feed.close()
  })

  it("tells the writes of a lookup's children on the children's own feed", async () => {
    const feed = await EventStreamClient.open(t.app, '/notes/_events')
    const task = await createDoc(t.app, '/tasks', { title: 'parent', owner: 'alice', role: 'admin' })
    const note = await createDoc(t.app, `/tasks/${task.id}/notes`, { text: 'hello' })
    const [event] = await feed.take(1)
    assert.equal(event!.event, 'create')
    assert.deepEqual(event!.data.document, { id: note.id, text: 'hello', taskId: task.id })
    feed.close()
  })

  it('tells the writes of an atomic _batch once it commits', async () => {
    const feed = await EventStreamClient.open(t.app, '/tasks/_events')
    const operations = [
      { op: 'create', body: { title: 'b1', owner: 'alice', role: 'admin' } },
      { op: 'create', body: { title: 'b2', owner: 'alice', role: 'admin' } },
    ]
    const res = await t.app.inject({ method: 'POST', url: '/tasks/_batch', payload: { operations } })
    assert.equal(res.statusCode, 200, res.body)
    const events = await feed.take(2)
    assert.deepEqual(events.map((event) => [event.event, event.data.document.title]).sort(), [['create', 'b1'], ['create', 'b2']])
    feed.close()
  })

  it('tells a document leaving the filters as delete, and one entering them as create', async () => {
    const feed = await EventStreamClient.open(t.app, `/tasks/_events${filtersQuery({ role: 'admin' })}`)
    await createDoc(t.app, '/tasks', { title: 'never', owner: 'alice', role: 'member' })
    const doc = await createDoc(t.app, '/tasks', { title: 'x', owner: 'alice', role: 'admin' })
    await t.app.inject({ method: 'PATCH', url: `/tasks/${doc.id}`, payload: { role: 'member' } })
    await t.app.inject({ method: 'PATCH', url: `/tasks/${doc.id}`, payload: { title: 'y' } })
    await t.app.inject({ method: 'PATCH', url: `/tasks/${doc.id}`, payload: { role: 'admin' } })
    const events = await feed.take(3)
    assert.deepEqual(
      events.map((event) => [event.event, event.data.id]),
      [['create', doc.id], ['delete', doc.id], ['create', doc.id]]
    )
    assert.equal(events[2]!.data.document.title, 'y')
    assert.equal(feed.pending, 0)
    feed.close()
  })

  it("shows a subscriber only its scope's documents", async () => {
    const feed = await EventStreamClient.open(t.app, '/mine/_events', { 'x-user': 'bob' })
    await createDoc(t.app, '/tasks', { title: 'alice only', owner: 'alice', role: 'admin' })
    const doc = await createDoc(t.app, '/tasks', { title: 'moves', owner: 'alice', role: 'admin' })
    await t.app.inject({ method: 'PATCH', url: `/tasks/${doc.id}`, payload: { owner: 'bob' } })
    await t.app.inject({ method: 'PATCH', url: `/tasks/${doc.id}`, payload: { owner: 'carol' } })
    await t.app.inject({ method: 'DELETE', url: `/tasks/${doc.id}` })
    const marker = await createDoc(t.app, '/tasks', { title: 'marker', owner: 'bob', role: 'admin' })
    const events = await feed.take(3)
    assert.deepEqual(
      events.map((event) => [event.event, event.data.id]),
      [['create', doc.id], ['delete', doc.id], ['create', marker.id]]
    )
    assert.doesNotMatch(feed.text, /alice only/)
    feed.close()
  })

  it('resumes right after Last-Event-ID: none missed, none repeated', async () => {
    const feed = await EventStreamClient.open(t.app, '/tasks/_events')
    const first = await createDoc(t.app, '/tasks', { title: 'r1', owner: 'alice', role: 'admin' })
    const [seen] = await feed.take(1)
    feed.close()
    await feed.ended
    const second = await createDoc(t.app, '/tasks', { title: 'r2', owner: 'alice', role: 'admin' })
    const resumed = await EventStreamClient.open(t.app, '/tasks/_events', { 'last-event-id': seen!.id })
    const third = await createDoc(t.app, '/tasks', { title: 'r3', owner: 'alice', role: 'admin' })
    const events = await resumed.take(2)
    assert.equal(seen!.data.id, first.id)
    assert.deepEqual(events.map((event) => event.data.id), [second.id, third.id])
    resumed.close()
  })
})

const memory = storeModes[0]!

describe('GET _events: bounds and refusals', () => {
  let t: TestApp
  const guard = async (request: FastifyRequest) => {
    if (request.headers['x-allowed'] !== 'yes') throw new HTTPException(403, 'Not allowed')
  }
  before(async () => {
    t = await listening(
      await buildApp(memory, tasks, { model: Task, modelOut: TaskOut, collectionName: 'tasks', prefix: '/guarded', name: 'guarded', dependenciesGetAll: [guard], maxStreams: 1 },
        { model: Task, collectionName: 'tasks', prefix: '/unlisted', name: 'unlisted', disableGetAll: true })
    )
  })
  after(() => t.close())

  it("is guarded by the list's dependencies", async () => {
    const refused = await t.app.inject('/guarded/_events')
    assert.equal(refused.statusCode, 403)
  })

  it('goes with the list: disableGetAll leaves it out', async () => {
    const res = await t.app.inject('/unlisted/_events')
    assert.notEqual(res.statusCode, 200, res.body)
    assert.doesNotMatch(String(res.headers['content-type']), /event-stream/)
  })

  it('is documented in OpenAPI as an event stream, with its refusals', async () => {
    const spec = (await t.app.inject('/openapi.json')).json()
    const operation = spec.paths['/tasks/_events'].get
    assert.equal(operation.operationId, 'watchTasks')
    assert.ok(operation.responses['200'].content['text/event-stream'], JSON.stringify(operation.responses['200']))
    for (const status of ['400', '410', '422', '501', '503']) assert.ok(operation.responses[status], `no ${status} documented`)
    assert.ok(operation.parameters.some((parameter: { name: string }) => parameter.name === 'filters'))
    assert.ok(operation.parameters.some((parameter: { name: string, in: string }) => parameter.name === 'last-event-id' && parameter.in === 'header'))
  })

  it('answers 503 with Retry-After past the ceiling of subscribers', async () => {
    const first = await EventStreamClient.open(t.app, '/guarded/_events', { 'x-allowed': 'yes' })
    assert.equal(first.status, 200)
    const refused = await t.app.inject({ url: '/guarded/_events', headers: { 'x-allowed': 'yes' } })
    assert.equal(refused.statusCode, 503)
    assert.equal(refused.headers['retry-after'], '1')
    expectDetailMentioning(refused, 503, 'Too many event streams are open (at most 1')
    first.close()
    await first.ended
    // Its place is free once the server has seen it leave (its heartbeat stopped with it): then the next one gets in.
    // That one stays open until the app closes: tests that mock setInterval must not see a real one stopped.
    let next = await EventStreamClient.open(t.app, '/guarded/_events', { 'x-allowed': 'yes' })
    while (next.status === 503) {
      await next.ended
      next = await EventStreamClient.open(t.app, '/guarded/_events', { 'x-allowed': 'yes' })
    }
    assert.equal(next.status, 200)
  })

  it('answers 400 for a Last-Event-ID it never issued, and 422 for bad filters', async () => {
    const bad = await t.app.inject({ url: '/tasks/_events', headers: { 'last-event-id': 'not a token' } })
    assert.equal(bad.statusCode, 400)
    expectDetailMentioning(bad, 400, 'Last-Event-ID must be the id of an event of this stream')
    const future = await t.app.inject({ url: '/tasks/_events', headers: { 'last-event-id': 'ffffffffffffffff' } })
    assert.equal(future.statusCode, 400)
    const filters = await t.app.inject('/tasks/_events?filters=%7Bnope')
    assert.equal(filters.statusCode, 422)
  })

  it('drops a subscriber that stopped reading while a fast one goes on', async () => {
    // A paused client reads nothing, so it cannot tell it was dropped: the server's log line tells.
    const lines: string[] = []
    // Heartbeats are what the server judges a stalled connection by: each write here is followed by one.
    mock.timers.enable({ apis: ['setInterval'] })
    const logged = await listening(await buildAppWith(memory, { fastify: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } } }, tasks))
    try {
      const slow = await EventStreamClient.open(logged.app, '/tasks/_events')
      const fast = await EventStreamClient.open(logged.app, '/tasks/_events')
      slow.pause()
      const big = 'x'.repeat(256 * 1024)
      let written = 0
      const dropped = () => lines.some((line) => line.includes('event subscriber dropped'))
      // Until the server gives up on the slow one: its connection full, then nothing taken for two heartbeats.
      while (!dropped()) {
        await createDoc(logged.app, '/tasks', { title: big, owner: 'alice', role: 'admin' })
        written++
        await fast.take(1)
        mock.timers.tick(15_000)
        assert.ok(written < 1000, 'the slow subscriber was never dropped')
      }
      const last = await createDoc(logged.app, '/tasks', { title: 'after', owner: 'alice', role: 'admin' })
      const [event] = await fast.take(1)
      assert.equal(event!.data.id, last.id)
      slow.resume()
      await slow.ended
      let received = 0
      while ((await slow.next()) !== undefined) received++
      assert.ok(received < written, `the slow subscriber got ${received} of ${written} events`)
      fast.close()
    } finally {
      mock.timers.reset()
      await logged.close()
    }
  })

  it('sends a heartbeat comment on a quiet stream', async () => {
    mock.timers.enable({ apis: ['setInterval'] })
    try {
      const feed = await EventStreamClient.open(t.app, '/tasks/_events')
      // The handler arms its heartbeat right after the status line: the first event proves it is armed.
      await createDoc(t.app, '/tasks', { title: 'hb', owner: 'alice', role: 'admin' })
      await feed.take(1)
      mock.timers.tick(15_000)
      await createDoc(t.app, '/tasks', { title: 'hb2', owner: 'alice', role: 'admin' })
      await feed.take(1)
      assert.match(feed.text, /^: connected\n\n/)
      assert.match(feed.text, /\n: heartbeat\n\n/)
      feed.close()
    } finally {
      mock.timers.reset()
    }
  })
})

/** `db`, counting the change streams its collections open. */
function countingWatches(db: DriverDb, counter: { watches: number }): DriverDb {
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key)
    return typeof value === 'function' ? value.bind(target) : value
  }
  return new Proxy(db, {
    get(target, key) {
      if (key !== 'collection') return bound(target, key)
      return (name: string) => {
        const collection = target.collection(name)
        return new Proxy(collection, {
          get(inner, innerKey) {
            if (innerKey !== 'watch') return bound(inner, innerKey)
            return (...args: Parameters<NonNullable<typeof collection.watch>>) => {
              counter.watches++
              return inner.watch!(...args)
            }
          },
        })
      }
    },
  })
}

describe('GET _events: one database stream for the subscribers from now', () => {
  it('shares it among them; a subscriber after they all left still gets every change', async () => {
    const counter = { watches: 0 }
    const t = await listening(await buildAppWith(memory, { wrapDb: (db) => countingWatches(db, counter) }, { ...tasks, lookups: [] }))
    try {
      const feeds = await Promise.all([1, 2, 3].map(() => EventStreamClient.open(t.app, '/tasks/_events')))
      const doc = await createDoc(t.app, '/tasks', { title: 'shared', owner: 'alice', role: 'admin' })
      for (const feed of feeds) assert.equal((await feed.take(1))[0]!.data.id, doc.id)
      assert.equal(counter.watches, 1)
      // A resumed subscriber reads from its own point on.
      const resumed = await EventStreamClient.open(t.app, '/tasks/_events', { 'last-event-id': (await createAndSee(t, feeds)).id })
      assert.equal(counter.watches, 2)
      for (const feed of [...feeds, resumed]) feed.close()
      await Promise.all([...feeds, resumed].map((feed) => feed.ended))
      const later = await EventStreamClient.open(t.app, '/tasks/_events')
      const next = await createDoc(t.app, '/tasks', { title: 'later', owner: 'alice', role: 'admin' })
      assert.equal((await later.take(1))[0]!.data.id, next.id)
      later.close()
    } finally {
      await t.close()
    }
  })
})

/** Creates a document and waits for each feed's event of it; that event. */
async function createAndSee(t: TestApp, feeds: EventStreamClient[]) {
  await createDoc(t.app, '/tasks', { title: 'seen', owner: 'alice', role: 'admin' })
  const events = await Promise.all(feeds.map(async (feed) => (await feed.take(1))[0]!))
  return events[0]!
}

describe('GET _events: closing and retention', () => {
  it('ends every stream when the app closes', async () => {
    const t = await listening(await buildApp(memory, tasks))
    const feed = await EventStreamClient.open(t.app, '/tasks/_events')
    await t.close()
    await feed.ended
    assert.equal(await feed.next(), undefined)
  })

  it('answers 410 with a detail for a Last-Event-ID older than what is retained', async () => {
    const small: StoreMode = {
      name: 'embedded-small-log',
      async open() {
        const db = await openEmbedded({ changeRetention: { events: 2 } })
        return { db, close: () => db.close() }
      },
    }
    const t = await listening(await buildApp(small, tasks))
    try {
      const feed = await EventStreamClient.open(t.app, '/tasks/_events')
      await createDoc(t.app, '/tasks', { title: 'old', owner: 'alice', role: 'admin' })
      const [old] = await feed.take(1)
      feed.close()
      for (const title of ['n1', 'n2', 'n3']) await createDoc(t.app, '/tasks', { title, owner: 'alice', role: 'admin' })
      const gone = await t.app.inject({ url: '/tasks/_events', headers: { 'last-event-id': old!.id } })
      assert.equal(gone.statusCode, 410)
      expectDetailMentioning(gone, 410, 'no longer kept')
    } finally {
      await t.close()
    }
  })

  it('answers 501 on a database without change streams, and warns once', async () => {
    const lines: string[] = []
    const noWatch = (db: DriverDb): DriverDb => ({ collection: (name: string) => ({ ...db.collection(name), watch: undefined }) }) as unknown as DriverDb
    const stream = { write: (line: string) => lines.push(line) }
    const t = await buildAppWith(memory, { wrapDb: (db) => noWatch(db), fastify: { logger: { level: 'warn', stream } } }, { ...tasks, lookups: [] })
    try {
      for (let i = 0; i < 2; i++) {
        const refused = await t.app.inject('/tasks/_events')
        assert.equal(refused.statusCode, 501)
        expectDetailMentioning(refused, 501, 'no change streams')
      }
      assert.equal(lines.filter((line) => line.includes('no change streams') && line.includes('logged once')).length, 1)
    } finally {
      await t.close()
    }
  })

  it('resumes across a restart of the engine on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fmc-events-'))
    const onDisk: StoreMode = {
      name: 'embedded-disk-kept',
      async open() {
        const db = await openEmbedded({ path: dir })
        return { db, close: () => db.close() }
      },
    }
    try {
      const before = await listening(await buildApp(onDisk, tasks))
      const feed = await EventStreamClient.open(before.app, '/tasks/_events')
      await createDoc(before.app, '/tasks', { title: 'd1', owner: 'alice', role: 'admin' })
      const [seen] = await feed.take(1)
      const missed = await createDoc(before.app, '/tasks', { title: 'd2', owner: 'alice', role: 'admin' })
      await before.close()
      const again = await listening(await buildApp(onDisk, tasks))
      try {
        const resumed = await EventStreamClient.open(again.app, '/tasks/_events', { 'last-event-id': seen!.id })
        const later = await createDoc(again.app, '/tasks', { title: 'd3', owner: 'alice', role: 'admin' })
        assert.deepEqual((await resumed.take(2)).map((event) => event.data.id), [missed.id, later.id])
        resumed.close()
      } finally {
        await again.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
