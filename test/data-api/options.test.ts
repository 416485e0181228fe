import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDRouter, createApp, DataAPI, type DataAPIOptions, type DriverDb, SetupError } from 'fastify-mongo-crud'
import type { Json } from '../harness/seed.ts'
import { type OpenedStore, storeModes } from '../harness/stores.ts'
import { dataApiApp, Item, ItemOut, KEY, ns, Review, ReviewOut } from './data-api-harness.ts'

const mode = storeModes[0]!
const keys = [{ name: 'tests', key: KEY }]

/** Registers the routers and a DataAPI with `options` on a fresh app, and readies it (rejects with what registration throws). */
async function ready(store: OpenedStore, options: Partial<DataAPIOptions>, routers: Json[] = [{ model: Item, modelOut: ItemOut, collectionName: 'items', prefix: '/items' }]) {
  const app = await createApp({ fastify: { logger: false } })
  try {
    for (const router of routers) await app.register(CRUDRouter, { ...router, db: store.db })
    await app.register(DataAPI, options as DataAPIOptions)
    await app.ready()
    return app
  } catch (error) {
    await app.close()
    throw error
  }
}

const post = (app: Awaited<ReturnType<typeof ready>>, url: string, body: Json) => app.inject({ method: 'POST', url, headers: { apiKey: KEY }, payload: body })

describe('DataAPI options', () => {
  let store: OpenedStore
  before(async () => {
    store = await mode.open()
  })
  after(() => store.close())

  it("serves at /app/<appId>/endpoint/data/v1, appId 'data-api' by default; a register prefix moves it", async () => {
    for (const [options, url] of [[{}, '/app/data-api/endpoint/data/v1'], [{ appId: 'shop-abcde' }, '/app/shop-abcde/endpoint/data/v1'], [{ prefix: '/data' }, '/data']] as const) {
      const app = await ready(store, { keys, ...options })
      try {
        const res = await post(app, `${url}/action/find`, { dataSource: 'mongodb-atlas', database: 'embedded', collection: 'items', filter: {} })
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
      } finally {
        await app.close()
      }
    }
  })

  it('database: the name of the routers\' database by default; dataSource and database name what requests give', async () => {
    const app = await ready(store, { keys, dataSource: 'Cluster0', database: 'learn-data-api' })
    try {
      const res = await post(app, '/app/data-api/endpoint/data/v1/action/find', { dataSource: 'Cluster0', database: 'learn-data-api', collection: 'items', filter: {} })
      assert.equal(res.statusCode, 200)
      assert.equal((await post(app, '/app/data-api/endpoint/data/v1/action/find', { dataSource: 'Cluster0', database: 'embedded', collection: 'items', filter: {} })).statusCode, 400)
    } finally {
      await app.close()
    }
  })

  it('routers: only the routers named are served', async () => {
    const routers = [{ model: Item, modelOut: ItemOut, collectionName: 'items', prefix: '/items' }, { model: Review, modelOut: ReviewOut, collectionName: 'reviews', prefix: '/reviews' }]
    const app = await ready(store, { keys, routers: ['reviews'] }, routers)
    try {
      assert.equal((await post(app, '/app/data-api/endpoint/data/v1/action/find', { database: 'embedded', collection: 'reviews', filter: {} })).statusCode, 200)
      assert.equal((await post(app, '/app/data-api/endpoint/data/v1/action/find', { database: 'embedded', collection: 'items', filter: {} })).statusCode, 400)
    } finally {
      await app.close()
    }
  })

  it('refuses at registration: no keys nor verifyToken, a key under 32 characters, an unknown router, two routers of one collection', async () => {
    const refusals: Array<[Partial<DataAPIOptions>, RegExp, Json[]?]> = [
      [{}, /needs 'keys' or 'verifyToken'/],
      [{ keys: [{ name: 'short', key: 'abc' }] }, /at least 32 characters/],
      [{ keys, routers: ['itemz'] }, /'routers' names 'itemz', which is no router of this app .*did you mean 'items'\?/],
      [{ keys }, /the routers 'items' and 'itemsV2' both serve the collection 'items'/, [{ model: Item, collectionName: 'items', prefix: '/a' }, { model: Item, collectionName: 'items', prefix: '/b', name: 'itemsV2' }]],
    ]
    for (const [options, message, routers] of refusals) {
      await assert.rejects(ready(store, options, routers), (error: unknown) => {
        assert.ok(error instanceof SetupError, String(error))
        assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
        assert.match(error.message, message)
        return true
      })
    }
  })
})

describe('Data API writes of many documents', () => {
  it('updateMany changes at most 10,000 documents: more is 400, nothing changed', async () => {
    const t = await dataApiApp(mode)
    try {
      // The engine's in-process collection has no insertMany: one insertOne each.
      const items = t.store.db.collection('items')
      for (let index = 0; index <= 10_000; index++) await items.insertOne({ name: `n${index}`, qty: 1 })
      const res = await t.call('updateMany', { ...ns(), filter: {}, update: { $inc: { qty: 1 } } })
      assert.equal(res.status, 400)
      assert.equal(res.body.error, 'updateMany matches more than 10000 documents: narrow the filter')
      assert.equal((await t.call('find', { ...ns(), filter: { qty: 2 } })).body.documents.length, 0)
    } finally {
      await t.close()
    }
  })

  it('deleteMany runs the delete route\'s guards once, then deletes every match in one operation', async () => {
    let guarded = 0
    const t = await dataApiApp(mode, { routers: [{ model: Item, collectionName: 'items', prefix: '/items', dependenciesDeleteOne: [() => void guarded++] }] })
    try {
      await t.call('insertMany', { ...ns(), documents: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] })
      assert.deepEqual((await t.call('deleteMany', { ...ns(), filter: {} })).body, { deletedCount: 3 })
      assert.equal(guarded, 1)
    } finally {
      await t.close()
    }
  })

  it('on a database without transactions, what the model refuses is refused before anything is written', async () => {
    // A handle without a client starts no transaction, as a standalone MongoDB server runs none.
    const withoutClient = (db: DriverDb): DriverDb => ({ collection: (name: string) => db.collection(name), databaseName: 'test' }) as unknown as DriverDb
    const store = await mode.open()
    const app = await createApp({ fastify: { logger: false } })
    try {
      await app.register(CRUDRouter, { model: Item, collectionName: 'items', prefix: '/items', db: withoutClient(store.db) })
      await app.register(DataAPI, { keys })
      await app.ready()
      const call = async (action: string, body: Json) => (await app.inject({ method: 'POST', url: `/app/data-api/endpoint/data/v1/action/${action}`, headers: { apiKey: KEY }, payload: { ...ns(), ...body } })).statusCode
      assert.equal(await call('insertMany', { documents: [{ name: 'ok', qty: 1 }, { name: 'bad', qty: -1 }] }), 422)
      assert.equal(await call('insertMany', { documents: [{ name: 'a', qty: 1 }, { name: 'b', qty: 2 }] }), 201)
      assert.equal(await call('updateMany', { filter: {}, update: { $inc: { qty: -2 } } }), 422)
      const found = await app.inject({ method: 'GET', url: '/items?sort_by=name' })
      assert.deepEqual(found.json().map((doc: Json) => [doc.name, doc.qty]), [['a', 1], ['b', 2]])
    } finally {
      await app.close()
      await store.close()
    }
  })
})
