import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('notFoundStatus: 404', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users', notFoundStatus: 404 })
  })
  after(() => t.close())

  it('answers 404 "Document not found" for a missing document', async () => {
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${ABSENT_ID}` }), 404, 'Document not found')
  })

  it('answers 404 "Document not found" for an invalid id', async () => {
    expectDetail(await t.app.inject({ method: 'GET', url: '/users/abc' }), 404, 'Document not found')
  })

  it('still answers 200 for a document that exists', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'kim', email: 'kim@example.com', password: 'pw' })
    const res = await t.app.inject({ method: 'GET', url: `/users/${doc.id}` })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().name, 'kim')
  })
})
