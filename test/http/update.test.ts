import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectBodyValidationError, expectDetail, expectEntryAt } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('PATCH /users/{id} updates part of a document', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
  })
  after(() => t.close())

  const original = { name: 'hal', email: 'hal@example.com', password: 'pw', age: 60, city: 'Lima' }

  it('answers 200 and changes only the keys sent', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { ...doc, city: 'Quito' })
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), { ...doc, city: 'Quito' })
  })

  it('changes several keys at once and keeps the others', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/users/${doc.id}`,
      payload: { name: 'hal9000', age: 61 },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), { ...doc, name: 'hal9000', age: 61 })
  })

  it('clears a nullable field sent as null', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { age: null } })
    assert.equal(res.statusCode, 200, res.body)
    const stored = await getJson(t.app, `/users/${doc.id}`)
    assert.ok(stored.age === null || stored.age === undefined, `age not cleared: ${JSON.stringify(stored)}`)
    assert.deepEqual({ ...stored, age: null }, { ...doc, age: null })
  })

  it('answers 422 for null on a non-nullable field, and changes nothing', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { name: null } })
    expectEntryAt(expectBodyValidationError(res), ['body', 'name'])
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), doc)
  })

  it('answers 422 for a wrong type, and changes nothing', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/users/${doc.id}`,
      payload: { age: 'sixty', city: 'Quito' },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'age'])
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), doc)
  })

  it('answers 422 for an unknown key, and changes nothing', async () => {
    const doc = await createDoc(t.app, '/users', original)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/users/${doc.id}`,
      payload: { isAdmin: true, city: 'Quito' },
    })
    const entries = expectBodyValidationError(res)
    assert.ok(JSON.stringify(entries).includes('isAdmin'), `the unknown key is not named: ${res.body}`)
    assert.deepEqual(await getJson(t.app, `/users/${doc.id}`), doc)
  })

  it('answers 422 "Document not updated" for a missing document, and creates nothing', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: `/users/${ABSENT_ID}`, payload: { city: 'Quito' } })
    expectDetail(res, 422, 'Document not updated')
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${ABSENT_ID}` }), 400, 'Document not found')
  })

  it('answers 422 "Document not updated" for an invalid id, never 500', async () => {
    expectDetail(
      await t.app.inject({ method: 'PATCH', url: '/users/abc', payload: { city: 'Quito' } }),
      422,
      'Document not updated',
    )
  })
})
