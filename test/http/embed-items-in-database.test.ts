import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, type DriverDb } from 'fastify-mongo-crud'
import { queryString, type TestApp } from '../harness/app.ts'
import { Address, buildRelationsApp, Person } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/** Items the parent holds: far more than any page or single-item answer needs. */
const ITEMS = 200

/**
 * A db that records, for every answer of the `people` collection, how many embedded addresses came back
 * from the database: the router must ask the database for a page or one item, never the whole array.
 */
class ItemsReturned {
  readonly counts: number[] = []

  wrap(db: DriverDb): DriverDb {
    const record = (value: unknown) => this.#record(value)
    return {
      collection(name) {
        const real = db.collection(name)
        if (name !== 'people') return real
        return new Proxy(real, {
          get(target, key, receiver) {
            const method = Reflect.get(target, key, receiver)
            if (typeof method !== 'function') return method
            if (key === 'aggregate' || key === 'find') {
              return (...args: unknown[]) => {
                const cursor = method.apply(target, args)
                return new Proxy(cursor, {
                  get(c, k, r) {
                    const inner = Reflect.get(c, k, r)
                    if (k !== 'toArray' || typeof inner !== 'function') return typeof inner === 'function' ? inner.bind(c) : inner
                    return async () => {
                      const docs = (await inner.call(c)) as unknown[]
                      // An aggregation over items answers items: each one counts.
                      if (key === 'aggregate') record(docs)
                      else for (const doc of docs) record(doc)
                      return docs
                    }
                  },
                })
              }
            }
            return async (...args: unknown[]) => {
              const result = await method.apply(target, args)
              record(result)
              return result
            }
          },
        })
      },
    }
  }

  #record(value: unknown): void {
    if (Array.isArray(value)) this.counts.push(value.length)
    else if (value !== null && typeof value === 'object' && 'addresses' in value) {
      const items = (value as { addresses: unknown }).addresses
      this.counts.push(Array.isArray(items) ? items.length : 0)
    }
  }

  reset(): void {
    this.counts.length = 0
  }
}

describeEachStore('embedded items are read and written in the database, not by loading the parent array', (mode) => {
  const spy = new ItemsReturned()
  let t: TestApp
  let ann: Json
  const ids: string[] = []
  before(async () => {
    t = await buildRelationsApp(mode, { wrapDb: (db) => spy.wrap(db) }, {
      model: Person,
      collectionName: 'people',
      prefix: '/people',
      embeds: [new CRUDEmbed({ model: Address, embedName: 'addresses' })],
    })
    ann = await createDoc(t.app, '/people', { name: 'ann' })
    for (let n = 0; n < ITEMS; n++) {
      const item = await createDoc(t.app, `/people/${ann.id}/addresses`, { street: `s${String(n).padStart(3, '0')}`, city: n % 2 === 0 ? 'Rome' : 'Oslo' })
      ids.push(item.id as string)
    }
  })
  after(() => t.close())

  it('a filtered, sorted page of 5 brings 5 items out of the database (and one more, that tells of a next page)', async () => {
    spy.reset()
    const res = await t.app.inject({ method: 'GET', url: `/people/${ann.id}/addresses${queryString({ limit: 5, skip: 10, sort_by: 'street', sort_dir: -1 })}&filters=${encodeURIComponent(JSON.stringify({ city: 'Oslo' }))}` })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().map((item: Json) => item.street), ['s179', 's177', 's175', 's173', 's171'])
    assert.ok(spy.counts.length > 0 && Math.max(...spy.counts) <= 6, `items the database returned: ${spy.counts.join(', ')}`)
  })

  it('GET and PATCH of one item bring that item alone out of the database', async () => {
    const id = ids[123]!
    spy.reset()
    const got = await t.app.inject({ method: 'GET', url: `/people/${ann.id}/addresses/${id}` })
    assert.equal(got.statusCode, 200, got.body)
    assert.equal(got.json().street, 's123')
    const patched = await t.app.inject({ method: 'PATCH', url: `/people/${ann.id}/addresses/${id}`, payload: { city: 'Lima' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json(), { id, street: 's123', city: 'Lima' })
    assert.ok(spy.counts.length > 0 && Math.max(...spy.counts) <= 1, `items the database returned: ${spy.counts.join(', ')}`)
  })

  it('an empty page of an existing parent is [], a missing parent is not found', async () => {
    const empty = await t.app.inject({ method: 'GET', url: `/people/${ann.id}/addresses?filters=${encodeURIComponent(JSON.stringify({ city: 'Paris' }))}` })
    assert.equal(empty.statusCode, 200, empty.body)
    assert.deepEqual(empty.json(), [])
    const missing = await t.app.inject({ method: 'GET', url: '/people/0123456789abcdef01234567/addresses' })
    assert.equal(missing.statusCode, 400, missing.body)
    assert.deepEqual(missing.json(), { detail: 'Document not found' })
  })
})
