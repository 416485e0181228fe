import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDRouter, createApp, type DriverDb, SetupError } from 'fastify-mongo-crud'
import { documentsExamined } from '../../packages/embedded/src/read/scan-documents.ts'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

interface IndexInfo {
  name: string
  key: Record<string, number>
  unique?: boolean
}

/** The collection's indexes, through the driver API (a cursor, from the engine as from the driver). */
async function indexesOf(db: DriverDb, name: string): Promise<IndexInfo[]> {
  return await (db.collection(name) as unknown as { listIndexes(): { toArray(): Promise<IndexInfo[]> } }).listIndexes().toArray()
}

describeEachStore('the indexes option', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, {
      model: User,
      collectionName: 'users',
      prefix: '/users',
      indexes: [{ key: { age: 1 } }, { key: { city: 1, age: -1 }, name: 'by_city_age' }, { key: { email: 1 }, unique: true }],
    })
  })
  after(() => t.close())

  it('creates each declared index at registration, with its key, name and uniqueness', async () => {
    const indexes = await indexesOf(t.store.db, 'users')
    const byName = new Map(indexes.map((index) => [index.name, index]))
    assert.deepEqual(byName.get('age_1')?.key, { age: 1 })
    assert.deepEqual(byName.get('by_city_age')?.key, { city: 1, age: -1 })
    assert.deepEqual(byName.get('email_1')?.key, { email: 1 })
    assert.equal(byName.get('email_1')?.unique, true)
    assert.notEqual(byName.get('age_1')?.unique, true)
  })

  it('enforces a declared unique index: a second document with the same value is not created', async () => {
    await createDoc(t.app, '/users', { name: 'ada', email: 'ada@x.io', password: 'pw' })
    expectDetail(await t.app.inject({ method: 'POST', url: '/users', payload: { name: 'ada2', email: 'ada@x.io', password: 'pw' } }), 422, 'Document not created')
  })

  it('registers again over the same collection without an error (createIndex is idempotent)', async () => {
    const app = await createApp({ title: 't', version: '1', fastify: { logger: false } })
    await app.register(CRUDRouter, { model: User, db: t.store.db, collectionName: 'users', indexes: [{ key: { age: 1 } }, { key: { email: 1 }, unique: true }] })
    await app.ready()
    await app.close()
  })
})

describeEachStore('a sorted page over a declared index', (mode) => {
  let t: TestApp
  const USERS = 60
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users', indexes: [{ key: { age: 1 } }] })
    // Four ages: runs of 15 equal keys, whose order is the router's _id tie-break.
    await seedDocs(t.app, '/users', Array.from({ length: USERS }, (_, i) => ({ name: `u${i}`, email: `u${i}@x.io`, password: 'pw', age: (i * 7) % 4 })))
  })
  after(() => t.close())

  /** The page and the documents the engine examined for it (none counted on a real MongoDB). */
  async function page(url: string): Promise<{ names: string[], examined: number }> {
    const start = documentsExamined()
    const docs = await getJson(t.app, url)
    return { names: docs.map((doc: { name: string }) => doc.name), examined: documentsExamined() - start }
  }

  it('answers sort_by=age and sort_by=-age pages in (age, id) order, examining only the page', async () => {
    const all = await getJson(t.app, '/users?limit=1000')
    const sorted = (direction: 1 | -1) => [...all].sort((a, b) => direction * (a.age - b.age) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((doc) => doc.name)
    for (const [query, direction] of [['sort_by=age', 1], ['sort_by=age&order_by=DESC', -1]] as const) {
      const first = await page(`/users?limit=5&${query}`)
      const next = await page(`/users?skip=12&limit=6&${query}`)
      assert.deepEqual(first.names, sorted(direction).slice(0, 5), query)
      assert.deepEqual(next.names, sorted(direction).slice(12, 18), query)
      if (mode.name !== 'mongodb') {
        // The page and one more: the list reads limit + 1 to know whether a next page (Link) exists; the
        // documents `skip` passes over are not read (an unfiltered walk of the index matches every key).
        assert.equal(first.examined, 6, `documents examined by ${query}&limit=5`)
        assert.equal(next.examined, 7, `documents examined by ${query}&skip=12&limit=6`)
      }
    }
  })
})

const mode = storeModes[0]!
const register = async (indexes: unknown): Promise<unknown> => {
  const store = await mode.open()
  const app = await createApp({ title: 't', version: '1', fastify: { logger: false } })
  try {
    await app.register(CRUDRouter, { model: User, db: store.db, collectionName: 'users', indexes: indexes as never })
    await app.ready()
    return undefined
  } catch (error) {
    return error
  } finally {
    await app.close()
    await store.close()
  }
}

for (const [title, indexes, message] of [
  ['a field the model does not have', [{ key: { agee: 1 } }], /indexes\[0\]'.key names 'agee', which is not '_id' or a field of the model/],
  ['a direction other than 1 or -1', [{ key: { age: 'asc' } }], /indexes\[0\]'.key.age must be 1 or -1/],
  ['an empty key', [{ key: {} }], /indexes\[0\]'.key must be a non-empty object/],
  ['an unknown key of an index', [{ key: { age: 1 }, sparse: true }], /indexes\[0\]' has unknown key\(s\) 'sparse'/],
  ['a unique that is not a boolean', [{ key: { age: 1 }, unique: 'yes' }], /indexes\[0\]'.unique must be a boolean/],
  ['something other than an array', { key: { age: 1 } }, /'indexes' must be an array/],
] as const) {
  it(`refuses at registration an index with ${title}`, async () => {
    const error = await register(indexes)
    assert.ok(error instanceof SetupError, String(error))
    assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
    assert.match(error.message, message)
  })
}
