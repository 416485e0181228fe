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

/**
 * The race a tester found on disk, as they ran it: a JSON Patch and an atomic batch update sent at
 * once over real HTTP, both with the tag the document was created with. On disk, a write the write
 * queue let go once applied was not yet committed, and the batch's transaction, taking the queue
 * then, read the version before it: both answered 200 and one change was lost (18 rounds in 300).
 * No timing is involved in what is checked: in every round exactly one applies, whatever the order.
 */
describeEachStore('an atomic batch and a JSON Patch with the same If-Match: exactly one applies, the other answers 412', (mode) => {
  let t: TestApp
  let base: string
  before(async () => {
    t = await buildRelationsApp(mode, {}, { model: User, collectionName: 'race_tags', prefix: '/users' })
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  it('in 50 rounds, one change is stored and the other refused', async () => {
    const json = { 'content-type': 'application/json' }
    for (let round = 0; round < 50; round++) {
      const created = await fetch(`${base}/users`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'hal', email: 'hal@example.com', password: 'pw' }) })
      const { id } = (await created.json()) as { id: string }
      const tag = created.headers.get('etag') as string
      const [patch, batch] = await Promise.all([
        fetch(`${base}/users/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json-patch+json', 'if-match': tag }, body: JSON.stringify([{ op: 'add', path: '/city', value: 'patched' }]) }),
        fetch(`${base}/users/_batch`, { method: 'POST', headers: json, body: JSON.stringify({ operations: [{ op: 'update', id, body: { age: 42 }, ifMatch: tag }] }) }),
      ])
      const answers = `round ${round}: PATCH ${patch.status} ${await patch.text()}, batch ${batch.status} ${await batch.text()}`
      assert.deepEqual([patch.status, batch.status].sort(), [200, 412], answers)
      const stored = (await (await fetch(`${base}/users/${id}`)).json()) as Json
      assert.deepEqual([stored.city, stored.age], patch.status === 200 ? ['patched', undefined] : [undefined, 42], answers)
    }
  })
})
