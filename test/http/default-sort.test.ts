import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { getJson, namesOf, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('defaultSort', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, collectionName: 'users', prefix: '/users', defaultSort: { field: 'age', direction: -1 } },
      { model: User, collectionName: 'users', prefix: '/plain' },
    )
    await seedDocs(t.app, '/users', [
      { name: 'b', email: 'b@x.org', password: 'pw', age: 20 },
      { name: 'c', email: 'c@x.org', password: 'pw', age: 40 },
      { name: 'a', email: 'a@x.org', password: 'pw', age: 30 },
    ])
  })
  after(() => t.close())

  it('a list without sort_by is sorted by the default', async () => {
    assert.deepEqual(namesOf(await getJson(t.app, '/users')), ['c', 'a', 'b'])
    assert.deepEqual(namesOf(await getJson(t.app, '/users?limit=2')), ['c', 'a'])
  })

  it("a request's sort_by overrides it", async () => {
    assert.deepEqual(namesOf(await getJson(t.app, '/users?sort_by=name')), ['a', 'b', 'c'])
  })

  it("a request's direction alone turns the default around", async () => {
    assert.deepEqual(namesOf(await getJson(t.app, '/users?order_by=asc')), ['b', 'a', 'c'])
    assert.deepEqual(namesOf(await getJson(t.app, '/users?sort_dir=1')), ['b', 'a', 'c'])
  })

  it('pages in the default order carry a next Link', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/users?limit=2' })
    const next = /^<([^>]+)>/.exec(String(res.headers.link))![1]!
    assert.deepEqual(namesOf(await getJson(t.app, next)), ['b'])
  })

  it('another router of the same collection keeps its own order', async () => {
    assert.deepEqual(namesOf(await getJson(t.app, '/plain?sort_by=name&order_by=desc')), ['c', 'b', 'a'])
  })
})

describe('defaultSort is checked at registration', () => {
  const refused = [
    [{ field: 'nope' }, /not a sortable field/],
    [{ field: 'password' }, /not a sortable field/],
    [{ field: 'age', direction: 2 }, /direction/],
    [{ field: 'age', dir: -1 }, /unknown key/],
    ['age', /defaultSort/],
  ] as const
  for (const [defaultSort, message] of refused) {
    it(`refuses ${JSON.stringify(defaultSort)}`, async () => {
      const db = await openEmbedded()
      const app = await createApp({ title: 't', version: '1', fastify: { logger: false } })
      try {
        await assert.rejects(
          async () => {
            // biome-ignore lint/suspicious/noExplicitAny: wrong option values on purpose
            await app.register(CRUDRouter, { model: User, db, collectionName: 'users', sortable: ['name', 'age'], defaultSort } as any)
            await app.ready()
          },
          (error: Error & { code?: string }) => error.code === 'FMC_ERR_OPTIONS_INVALID' && message.test(error.message),
        )
      } finally {
        await app.close().catch(() => {})
        await db.close()
      }
    })
  }
})
