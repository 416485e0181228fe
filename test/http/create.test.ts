import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail, OBJECT_ID } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('POST /users creates a document', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
  })
  after(() => t.close())

  it('answers 201 with the document as stored and a 24-hex string id', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'ann', email: 'ann@example.com', password: 'pw', age: 41, city: 'Oslo' },
    })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(typeof body.id, 'string')
    assert.match(body.id, OBJECT_ID)
    assert.deepEqual(body, {
      id: body.id,
      name: 'ann',
      email: 'ann@example.com',
      password: 'pw',
      age: 41,
      city: 'Oslo',
    })
  })

  it('stores the document so that GET by the returned id finds it', async () => {
    const created = (
      await t.app.inject({
        method: 'POST',
        url: '/users',
        payload: { name: 'ben', email: 'ben@example.com', password: 'pw' },
      })
    ).json()
    const fetched = await getJson(t.app, `/users/${created.id}`)
    assert.deepEqual(fetched, created)
  })

  it('generates an id when the body sends id null', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { id: null, name: 'cy', email: 'cy@example.com', password: 'pw' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.match(res.json().id, OBJECT_ID)
  })

  it('keeps a client-supplied valid id', async () => {
    const id = '65a000000000000000000001'
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { id, name: 'dee', email: 'dee@example.com', password: 'pw' },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().id, id)
    assert.equal((await getJson(t.app, `/users/${id}`)).name, 'dee')
  })

  it('answers 422 "Document not created" when the same id is created twice, and keeps the first', async () => {
    const id = '65a000000000000000000002'
    const first = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { id, name: 'eve', email: 'eve@example.com', password: 'pw' },
    })
    assert.equal(first.statusCode, 201, first.body)
    const second = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { id, name: 'eve2', email: 'eve2@example.com', password: 'pw' },
    })
    expectDetail(second, 422, 'Document not created')
    assert.equal((await getJson(t.app, `/users/${id}`)).name, 'eve')
  })

  it('gives every created document a distinct id', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/users',
        payload: { name: `f${i}`, email: `f${i}@example.com`, password: 'pw' },
      })
      assert.equal(res.statusCode, 201, res.body)
      ids.add(res.json().id)
    }
    assert.equal(ids.size, 5)
  })
})
