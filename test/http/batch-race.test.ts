import assert from 'node:assert/strict'
import { AsyncResource } from 'node:async_hooks'
import { after, before, it } from 'node:test'
import type { DriverDb } from 'fastify-mongo-crud'
import type { TestApp } from '../harness/app.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { User } from '../harness/models.ts'
import { buildRelationsApp } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * A concurrent write landing in the middle of an atomic batch, made deterministic: once armed, the
 * first write the batch makes (a call carrying its transaction's `session`) sends another request
 * as soon as it is done, before the batch goes on. No timing is involved: wherever the database
 * orders that request, the outcome must be all of the batch or none of it, and the other write kept.
 */
class WriteInTheMiddle {
  private pending: (() => Promise<unknown>) | undefined
  sent: Promise<unknown> | undefined

  arm(request: () => Promise<unknown>): void {
    // Sent from the test's own context, not the batch's: it is another client's request.
    this.pending = AsyncResource.bind(request)
    this.sent = undefined
  }

  wrap(db: DriverDb): DriverDb {
    return {
      client: db.client,
      ...interceptCollections(db, async (call, method, args) => {
        const result = await call()
        const inBatch = args.some((arg) => typeof arg === 'object' && arg !== null && 'session' in arg)
        if (inBatch && method !== 'findOne' && this.pending !== undefined) {
          const request = this.pending
          this.pending = undefined
          this.sent = request()
        }
        return result
      }),
    }
  }
}

describeEachStore('atomic batches under a concurrent writer: all or nothing, and the other write is never lost', (mode) => {
  const middle = new WriteInTheMiddle()
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(mode, { wrapDb: (db) => middle.wrap(db) }, { model: User, collectionName: 'race_users', prefix: '/users' })
  })
  after(() => t.close())

  const hal = { name: 'hal', email: 'hal@example.com', password: 'pw' }
  const get = async (id: string) => (await t.app.inject({ method: 'GET', url: `/users/${id}` })).json() as Json

  it('a batch that succeeds keeps its writes and the concurrent one', async () => {
    const a = await createDoc(t.app, '/users', hal)
    const b = await createDoc(t.app, '/users', { ...hal, name: 'b' })
    middle.arm(() => t.app.inject({ method: 'PATCH', url: `/users/${a.id}`, payload: { age: 7 } }))
    const res = await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { operations: [{ op: 'update', id: a.id, body: { city: 'A' } }, { op: 'update', id: b.id, body: { city: 'B' } }] } })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(middle.sent !== undefined, 'the concurrent write was not sent')
    assert.equal(((await middle.sent) as { statusCode: number }).statusCode, 200)
    assert.deepEqual([(await get(a.id)).city, (await get(a.id)).age, (await get(b.id)).city], ['A', 7, 'B'])
  })

  it('a batch that fails stores nothing, and the concurrent write is kept', async () => {
    const a = await createDoc(t.app, '/users', hal)
    const b = await createDoc(t.app, '/users', { ...hal, name: 'b' })
    middle.arm(() => t.app.inject({ method: 'PATCH', url: `/users/${a.id}`, payload: { age: 8 } }))
    const res = await t.app.inject({
      method: 'POST',
      url: '/users/_batch',
      payload: { operations: [{ op: 'update', id: a.id, body: { city: 'A' } }, { op: 'update', id: b.id, body: { city: 'B' }, ifMatch: '"not-its-tag"' }] },
    })
    assert.equal(res.statusCode, 412)
    assert.equal(res.json().index, 1)
    assert.equal(((await middle.sent) as { statusCode: number }).statusCode, 200)
    const [nowA, nowB] = [await get(a.id), await get(b.id)]
    assert.deepEqual([nowA.city, nowA.age, nowB.city], [undefined, 8, undefined])
  })
})
