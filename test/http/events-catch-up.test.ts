import assert from 'node:assert/strict'
import { after, before, describe, it, mock } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { type DriverDb, MongoModel, Type } from 'fastify-mongo-crud'
import { buildAppWith, type RouterOptions, type TestApp } from '../harness/app.ts'
import { EventStreamClient, type SseEvent } from '../harness/event-stream.ts'
import { expectDetailMentioning } from '../harness/expect.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore, type StoreMode } from '../harness/stores.ts'

/**
 * GET <prefix>/_events with more than 1 MiB of changes to send at once (issue 32): a reconnect with
 * Last-Event-ID catches up on a large backlog, and a live subscriber takes a large burst, each event
 * once and in order, however slowly it reads (docs/events.md). Each test waits for events, never for time.
 */
const Item = MongoModel('CatchUpItem', { title: Type.String() })
const items: RouterOptions = { model: Item, collectionName: 'catchUpItems', prefix: '/items' }

/** About 400 bytes of event each: 3,000 of them are past 1 MiB. */
const SMALL = 300
const LARGE = 60 * 1024

// The server's heartbeats held for the whole file (setInterval mocked, never ticked): a subscriber is
// dropped once its connection took nothing for two heartbeats, and these tests pause one for as long as
// their writes take, however slow the machine. Every stream here starts and ends while they are held.
before(() => mock.timers.enable({ apis: ['setInterval'] }))
after(() => mock.timers.reset())

describeEachStore('GET _events: more than 1 MiB of changes at once', (mode) => {
  let t: TestApp
  /** The resume token of every change stream the router opened with one, in order. */
  const resumedAfter: string[] = []
  const recordingResumes = (db: DriverDb): DriverDb => ({
    client: db.client,
    ...interceptCollections(db, (call, method, args) => {
      const from = (args[1] as { resumeAfter?: { _data: string } } | undefined)?.resumeAfter
      if (method === 'watch' && from !== undefined) resumedAfter.push(from._data)
      return call()
    }),
  })
  /** What the server logs of its event subscribers: a paused client cannot tell what the server did with it. */
  const logged: string[] = []
  const logger = { level: 'info', stream: { write: (line: string) => line.includes('event subscriber') && logged.push(line) } }
  before(async () => {
    t = await buildAppWith(mode, { wrapDb: recordingResumes, fastify: { logger } }, items)
    // An event stream never ends, so inject (which waits for the end) cannot read one: real HTTP.
    await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  /** The id of a new change's event, as a subscriber that then went away last saw it. */
  async function resumePoint(): Promise<string> {
    const feed = await EventStreamClient.open(t.app, '/items/_events')
    const marker = await createDoc(t.app, '/items', { title: 'seen' })
    const [seen] = await feed.take(1)
    assert.equal(seen!.data.id, marker.id)
    feed.close()
    await feed.ended
    return seen!.id
  }

  /**
   * Creates `count` documents of about `size` bytes, in order, their titles starting with `label`: batches
   * that are not atomic (each create its own write, in order), under the default body limit.
   */
  async function write(count: number, size: number, label = ''): Promise<Json[]> {
    const created: Json[] = []
    const perBatch = Math.min(100, Math.max(1, Math.floor(900_000 / size)))
    for (let from = 0; from < count; from += perBatch) {
      const operations = []
      for (let i = from; i < Math.min(count, from + perBatch); i++) operations.push({ op: 'create', body: { title: `${label}${i}:`.padEnd(size, 'x') } })
      const res = await t.app.inject({ method: 'POST', url: '/items/_batch', payload: { atomic: false, operations } })
      assert.equal(res.statusCode, 200, res.body)
      for (const result of res.json().results) {
        assert.equal(result.status, 201, JSON.stringify(result))
        created.push(result.body)
      }
    }
    return created
  }

  for (const { count, size } of [{ count: 3000, size: SMALL }, { count: 20, size: LARGE }]) {
    it(`a reconnect with Last-Event-ID gets all ${count} missed events of ${size} bytes, in order, then live ones`, async () => {
      const from = await resumePoint()
      const missed = await write(count, size)
      const resumed = await EventStreamClient.open(t.app, '/items/_events', { 'last-event-id': from })
      assert.equal(resumed.status, 200)
      const live = await createDoc(t.app, '/items', { title: 'live' })
      await expectCreates(resumed, [...missed, live])
      resumed.close()
    })
  }

  it('a reconnect that reads nothing for a while holds back no live subscriber, then gets its whole backlog', async () => {
    const from = await resumePoint()
    // 6 MB: more than a paused client's socket buffers usually take, so the server waits on it meanwhile.
    const missed = await write(100, LARGE)
    const live = await EventStreamClient.open(t.app, '/items/_events')
    const slow = await EventStreamClient.open(t.app, '/items/_events', { 'last-event-id': from })
    slow.pause()
    const next = await write(3, LARGE)
    await expectCreates(live, next)
    slow.resume()
    await expectCreates(slow, [...missed, ...next])
    live.close()
    slow.close()
  })

  it('a live subscriber that reads nothing while megabytes are written reads on from its own change stream, missing nothing', async () => {
    const slow = await EventStreamClient.open(t.app, '/items/_events')
    const fast = await EventStreamClient.open(t.app, '/items/_events')
    slow.pause()
    const resumesBefore = resumedAfter.length
    const fellBehind = () => logged.some((line) => line.includes('fell behind the shared change stream'))
    const written: Json[] = []
    // Until its connection is full and 1 MiB more waits for it: then it leaves the shared stream for its own.
    while (!fellBehind()) {
      written.push(...(await write(1, LARGE)))
      await expectCreates(fast, written.slice(-1))
      assert.ok(written.length < 1000, 'the slow subscriber never left the shared stream')
    }
    const later = await write(3, LARGE)
    await expectCreates(fast, later)
    slow.resume()
    const events = await expectCreates(slow, [...written, ...later])
    // Its own stream resumed right after an event it was sent; the fast one never left.
    const resumes = resumedAfter.slice(resumesBefore)
    assert.equal(resumes.length, 1, `change streams resumed: ${resumes.join(', ')}`)
    assert.ok(events.some((event) => event.id === resumes[0]))
    assert.equal(logged.filter((line) => line.includes('fell behind')).length, 1)
    slow.close()
    fast.close()
  })

  it('a live subscriber gets a burst of changes committed at once, each once', async () => {
    const docs = await write(1000, 10, 'burst')
    const feed = await EventStreamClient.open(t.app, '/items/_events')
    // Another writer's updateMany: one command, so 1000 changes of 1.2 KB reach the router together.
    const title = 'u'.repeat(1200)
    const collection = t.store.db.collection('catchUpItems') as unknown as { updateMany(filter: object, update: object): Promise<unknown> }
    await collection.updateMany({ title: { $regex: '^burst' } }, { $set: { title } })
    const after = await createDoc(t.app, '/items', { title: 'after' })
    const events = await feed.take(docs.length + 1)
    // One command's changes have no order of their own: each once, then the next write's.
    const ids = (list: { id: string }[]) => list.map((doc) => doc.id).sort()
    assert.deepEqual(ids(events.slice(0, -1).map((event) => event.data)), ids(docs))
    assert.ok(events.slice(0, -1).every((event) => event.event === 'update' && event.data.document.title === title))
    assert.deepEqual([events.at(-1)!.event, events.at(-1)!.data.id], ['create', after.id])
    feed.close()
  })
})

describe('GET _events: catching up past what the database keeps', () => {
  it("ends the stream of a subscriber the change log's retention passed; reconnecting, it is answered 410", async () => {
    const smallLog: StoreMode = {
      name: 'embedded-small-log',
      async open() {
        const db = await openEmbedded({ changeRetention: { events: 50 } })
        return { db, close: () => db.close() }
      },
    }
    const logged: string[] = []
    const logger = { level: 'info', stream: { write: (line: string) => line.includes('event subscriber') && logged.push(line) } }
    const t = await buildAppWith(smallLog, { fastify: { logger } }, items)
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const slow = await EventStreamClient.open(t.app, '/items/_events')
      slow.pause()
      const written: Json[] = []
      // Until it reads on from its own change stream: what it has not read is then the change log's to keep.
      while (!logged.some((line) => line.includes('fell behind the shared change stream'))) {
        written.push(await createDoc(t.app, '/items', { title: `${written.length}:`.padEnd(LARGE, 'x') }))
        assert.ok(written.length < 1000, 'the slow subscriber never left the shared stream')
      }
      // More changes than the log keeps: the ones it has not read are gone.
      for (let i = 0; i < 60; i++) written.push(await createDoc(t.app, '/items', { title: `small ${i}` }))
      slow.resume()
      await slow.ended
      const events: SseEvent[] = []
      for (let event = await slow.next(); event !== undefined; event = await slow.next()) events.push(event)
      // What it got before the end has no gap.
      assert.ok(events.length > 0)
      assert.deepEqual(events.map((event) => event.data.id), written.slice(0, events.length).map((doc) => doc.id))
      assert.ok(logged.some((line) => line.includes('event subscriber ended: the database no longer keeps the changes it has not read')))
      const gone = await t.app.inject({ url: '/items/_events', headers: { 'last-event-id': events.at(-1)!.id } })
      expectDetailMentioning(gone, 410, 'no longer kept')
    } finally {
      await t.close()
    }
  })
})

/** The next events of `feed` are the creates of `docs`, in that order: none missing, none repeated, none other. */
async function expectCreates(feed: EventStreamClient, docs: Json[]): Promise<SseEvent[]> {
  const events = await feed.take(docs.length)
  assert.deepEqual(
    events.map((event) => [event.event, event.data.id, event.data.document.title]),
    docs.map((doc) => ['create', doc.id, doc.title])
  )
  assert.equal(new Set(events.map((event) => event.id)).size, docs.length, 'each event has its own id')
  return events
}
