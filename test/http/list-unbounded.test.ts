import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const Item = MongoModel('Item', { n: Type.Integer() })
const COUNT = 1500

describeEachStore('GET /items without limit', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items' })
    for (let start = 0; start < COUNT; start += 100) {
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          t.app.inject({ method: 'POST', url: '/items', payload: { n: start + i } }),
        ),
      )
      for (const res of responses) assert.equal(res.statusCode, 201, res.body)
    }
  })
  after(() => t.close())

  it(`returns all ${COUNT} documents`, async () => {
    const docs = await getJson(t.app, '/items')
    assert.equal(docs.length, COUNT)
    const ns = docs.map((doc: { n: number }) => doc.n).sort((a: number, b: number) => a - b)
    assert.deepEqual(
      ns,
      Array.from({ length: COUNT }, (_, i) => i),
    )
  })

  it('returns everything after skip when only skip is given', async () => {
    const docs = await getJson(t.app, `/items${queryString({ skip: 1000, sort_by: 'n' })}`)
    assert.equal(docs.length, COUNT - 1000)
    assert.equal(docs[0].n, 1000)
    assert.equal(docs[docs.length - 1].n, COUNT - 1)
  })

  it('honours a limit larger than the usual page size', async () => {
    const docs = await getJson(t.app, `/items${queryString({ limit: 1200, sort_by: 'n', order_by: 'DESC' })}`)
    assert.equal(docs.length, 1200)
    assert.equal(docs[0].n, COUNT - 1)
  })
})
