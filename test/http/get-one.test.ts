import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectDetail } from '../harness/expect.ts'
import { aliceInput, User } from '../harness/models.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /users/{id} reads one document', (mode) => {
  let t: TestApp
  let alice: Json
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    alice = await createDoc(t.app, '/users', aliceInput)
  })
  after(() => t.close())

  it('answers 200 with the document', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/users/${alice.id}` })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: alice.id, ...aliceInput })
  })

  it('answers 400 "Document not found" for a valid id that does not exist', async () => {
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${ABSENT_ID}` }), 400, 'Document not found')
  })

  for (const bad of ['abc', 'zzzzzzzzzzzzzzzzzzzzzzzz', '123', `${'a'.repeat(25)}`, '%24where']) {
    it(`answers 400 "Document not found" for the invalid id ${JSON.stringify(bad)}, never 500`, async () => {
      expectDetail(await t.app.inject({ method: 'GET', url: `/users/${bad}` }), 400, 'Document not found')
    })
  }

  it('answers 400 "Document not found" for a document that was deleted', async () => {
    const bob = await createDoc(t.app, '/users', { name: 'bob', email: 'bob@example.com', password: 'pw' })
    const del = await t.app.inject({ method: 'DELETE', url: `/users/${bob.id}` })
    assert.equal(del.statusCode, 204, del.body)
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${bob.id}` }), 400, 'Document not found')
  })
})
