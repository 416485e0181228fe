import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson, namesOf } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('DELETE /users/{id} deletes a document', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
  })
  after(() => t.close())

  it('answers 204 with an empty body, and the document is gone', async () => {
    const keep = await createDoc(t.app, '/users', { name: 'keep', email: 'keep@example.com', password: 'pw' })
    const doc = await createDoc(t.app, '/users', { name: 'ida', email: 'ida@example.com', password: 'pw' })
    const res = await t.app.inject({ method: 'DELETE', url: `/users/${doc.id}` })
    assert.equal(res.statusCode, 204)
    assert.equal(res.body, '')
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${doc.id}` }), 400, 'Document not found')
    assert.deepEqual(namesOf(await getJson(t.app, '/users')), ['keep'])
    assert.equal((await getJson(t.app, `/users/${keep.id}`)).name, 'keep')
  })

  it('answers 422 "Document not deleted" the second time', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'jo', email: 'jo@example.com', password: 'pw' })
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/users/${doc.id}` })).statusCode, 204)
    expectDetail(await t.app.inject({ method: 'DELETE', url: `/users/${doc.id}` }), 422, 'Document not deleted')
  })

  it('answers 422 "Document not deleted" for an id that never existed', async () => {
    expectDetail(await t.app.inject({ method: 'DELETE', url: `/users/${ABSENT_ID}` }), 422, 'Document not deleted')
  })

  it('answers 422 "Document not deleted" for an invalid id, never 500', async () => {
    expectDetail(await t.app.inject({ method: 'DELETE', url: '/users/abc' }), 422, 'Document not deleted')
  })
})
