import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectBodyValidationError, expectDetail, expectEntryAt } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('PUT /users/{id} replaces a document', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
  })
  after(() => t.close())

  const original = { name: 'gus', email: 'gus@example.com', password: 'pw', age: 50, city: 'Rome' }
  const replacement = { name: 'gus2', email: 'gus2@example.com', password: 'pw2', age: 51 }

  it('answers 200 with the replaced document, keeping the id', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: replacement })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: doc.id, ...replacement })
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), { id: doc.id, ...replacement })
  })

  it('removes optional fields that the new body leaves out', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: replacement })
    assert.equal(res.statusCode, 200, res.body)
    const stored = await getJson(t.app, `/users/${doc.id}`)
    assert.equal(stored.city, undefined)
  })

  it('accepts a body id equal to the path id', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: { ...replacement, id: doc.id } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().id, doc.id)
  })

  it('answers 422 when the body id differs from the path id, and changes nothing', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const other = await createDoc(t.app, '/users', { ...original, name: 'other' })
    const res = await t.app.inject({
      method: 'PUT',
      url: `/users/${doc.id}`,
      payload: { ...replacement, id: other.id },
    })
    assert.equal(res.statusCode, 422, res.body)
    assert.ok(res.json().detail !== undefined, res.body)
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), doc)
    assert.deepEqual(await getJson(t.app, `/users/${other.id}`), other)
  })

  it('answers 422 "Document not replaced" for a missing document, and creates nothing', async () => {
    const res = await t.app.inject({ method: 'PUT', url: `/users/${ABSENT_ID}`, payload: replacement })
    expectDetail(res, 422, 'Document not replaced')
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${ABSENT_ID}` }), 400, 'Document not found')
  })

  it('answers 422 "Document not replaced" for an invalid id, never 500', async () => {
    expectDetail(
      await t.app.inject({ method: 'PUT', url: '/users/abc', payload: replacement }),
      422,
      'Document not replaced',
    )
  })

  it('answers 422 with a body location when a required field is missing, and changes nothing', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const { email: _email, ...withoutEmail } = replacement
    const res = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: withoutEmail })
    expectEntryAt(expectBodyValidationError(res), ['body', 'email'])
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), doc)
  })
})
