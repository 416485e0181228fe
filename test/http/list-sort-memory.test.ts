import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { MongoClient } from 'mongodb'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { getJson } from '../harness/seed.ts'
import type { StoreMode } from '../harness/stores.ts'

/**
 * A list sorted on a field without an index, whose matches need more memory than the database allows
 * one sort (the engine's `sortMemoryLimitBytes`, MongoDB's 100 MB; code 292), answers 422 with a detail
 * that says what to change: retried unchanged it fails the same way, and a limit, narrower filters or an
 * index make it succeed. One that fits its own limit while the engine's other sorts hold what they may
 * together (`totalSortMemoryLimitBytes`; code 365) answers 503 with Retry-After: retried later, it succeeds.
 */
const SORT_TOO_LARGE = 'The list is too large to sort without an index on its sort field (the database refused the memory it needs): send a limit, narrower filters, or sort by an indexed field'

/**
 * 15 kB: 60 users of about 600 bytes each (400 of BSON, and the sort's own bookkeeping) do not fit, the
 * 20 a page of 10 keeps at most do.
 */
const LIMIT = 15_000
const USERS = 60
const BUSY = 'The database has no memory free for this query right now: retry in a moment, or send a limit, narrower filters, or sort by an indexed field'

const modes: StoreMode[] = [
  {
    name: 'embedded-memory',
    async open() {
      const db = await openEmbedded({ sortMemoryLimitBytes: LIMIT })
      return { db, close: () => db.close() }
    },
  },
  {
    name: 'embedded-disk',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'fmc-sort-memory-'))
      const db = await openEmbedded({ path: dir, sortMemoryLimitBytes: LIMIT })
      return {
        db,
        async close() {
          await db.close()
          await rm(dir, { recursive: true, force: true })
        },
      }
    },
  },
  {
    name: 'driver-wire',
    async open() {
      const engine = await openEmbedded({ sortMemoryLimitBytes: LIMIT })
      const server = await startWireServer(engine)
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 60_000 })
      await client.connect()
      return {
        db: client.db('test'),
        async close() {
          await client.close()
          await server.close()
          await engine.close()
        },
      }
    },
  },
]

for (const mode of modes) {
  describe(`a sort past the database's memory limit [${mode.name}]`, () => {
    let t: TestApp
    before(async () => {
      t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
      const users = t.store.db.collection('users')
      for (let i = 0; i < USERS; i++) await users.insertOne({ name: `user ${i} ${'x'.repeat(300)}`, email: `u${i}@x`, password: 'p', age: i % 40 })
    })
    after(() => t.close())

    for (const url of ['/users?sort_by=age', '/users?sort_by=age&order_by=DESC&limit=5000']) {
      it(`answers ${url} (streamed) with 422 and what to change`, async () => {
        expectDetail(await t.app.inject({ method: 'GET', url }), 422, SORT_TOO_LARGE)
      })
    }

    it('answers a page with a limit: only its top is held', async () => {
      const page = await getJson(t.app, '/users?sort_by=age&limit=10')
      assert.deepEqual(page.map((user: { age: number }) => user.age), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    })

    // docs/http-contract.md: an `id` sort streams whatever its size where the engine walks `_id` in order (on disk,
    // ObjectId ids); the engine in memory holds the matches to sort them, as for a field without an index.
    const walksIds = mode.name === 'embedded-disk'
    it(`${walksIds ? 'streams' : 'answers 422 to'} a list sorted by id past the limit`, async () => {
      const res = await t.app.inject({ method: 'GET', url: '/users?sort_by=id' })
      if (walksIds) assert.equal(res.json().length, USERS)
      else expectDetail(res, 422, SORT_TOO_LARGE)
    })

    it('streams the unsorted list, whatever its size', async () => {
      assert.equal((await getJson(t.app, '/users')).length, USERS)
    })
  })
}

/** What the engine's sorts may hold together: a page of 10 (up to 12 kB) does not fit beside a sort of 20 users (12 kB). */
const TOTAL = 20_000

/** The engine behind the router, reached directly to hold part of its total sort memory meanwhile. */
let engine: EmbeddedDb | undefined
const busyModes: StoreMode[] = [
  {
    name: 'embedded-memory',
    async open() {
      engine = await openEmbedded({ sortMemoryLimitBytes: LIMIT, totalSortMemoryLimitBytes: TOTAL })
      const db = engine
      return { db, close: () => db.close() }
    },
  },
  {
    name: 'driver-wire',
    async open() {
      const opened = await openEmbedded({ sortMemoryLimitBytes: LIMIT, totalSortMemoryLimitBytes: TOTAL })
      engine = opened.db('test')
      const server = await startWireServer(opened)
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 60_000 })
      await client.connect()
      return {
        db: client.db('test'),
        async close() {
          await client.close()
          await server.close()
          await opened.close()
        },
      }
    },
  },
]

for (const mode of busyModes) {
  describe(`a sort while the engine's other sorts hold its total sort memory [${mode.name}]`, () => {
    let t: TestApp
    before(async () => {
      t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
      const users = t.store.db.collection('users')
      for (let i = 0; i < USERS; i++) await users.insertOne({ name: `user ${i} ${'x'.repeat(300)}`, email: `u${i}@x`, password: 'p', age: i % 40 })
    })
    after(() => t.close())

    it('answers 503 with Retry-After, and the same request once the other sort is done', async () => {
      // Another sort without an index, read partly: it holds its 20 users (12 kB) until it is closed.
      const other = engine!.collection('users').find({ age: { $lt: 10 } }, { sort: { age: 1 } })[Symbol.asyncIterator]()
      assert.equal((await other.next()).value?.['age'], 0)
      const refused = await t.app.inject({ method: 'GET', url: '/users?sort_by=age&limit=10' })
      expectDetail(refused, 503, BUSY)
      assert.equal(refused.headers['retry-after'], '1')
      await other.return?.()
      const page = await getJson(t.app, '/users?sort_by=age&limit=10')
      assert.deepEqual(page.map((user: { age: number }) => user.age), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    })
  })
}
