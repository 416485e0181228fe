import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore("identifierField: 'email'", (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users', identifierField: 'email' })
  })
  after(() => t.close())

  it('reads a document at /users/{email}', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'ola', email: 'a@b.c', password: 'pw' })
    const res = await t.app.inject({ method: 'GET', url: '/users/a@b.c' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), doc)
  })

  it('answers 400 "Document not found" for an email nobody has', async () => {
    expectDetail(await t.app.inject({ method: 'GET', url: '/users/nobody@b.c' }), 400, 'Document not found')
  })

  it('does not find documents by their id on the item routes', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'pia', email: 'pia@b.c', password: 'pw' })
    expectDetail(await t.app.inject({ method: 'GET', url: `/users/${doc.id}` }), 400, 'Document not found')
  })

  it('replaces a document at /users/{email}', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'quin', email: 'quin@b.c', password: 'pw' })
    const res = await t.app.inject({
      method: 'PUT',
      url: '/users/quin@b.c',
      payload: { name: 'quin2', email: 'quin@b.c', password: 'pw2' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await getJson(t.app, '/users/quin@b.c'), {
      id: doc.id,
      name: 'quin2',
      email: 'quin@b.c',
      password: 'pw2',
    })
  })

  it('updates a document at /users/{email}', async () => {
    const doc = await createDoc(t.app, '/users', { name: 'rae', email: 'rae@b.c', password: 'pw' })
    const res = await t.app.inject({ method: 'PATCH', url: '/users/rae@b.c', payload: { age: 9 } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await getJson(t.app, '/users/rae@b.c'), { ...doc, age: 9 })
  })

  it('deletes a document at /users/{email}', async () => {
    await createDoc(t.app, '/users', { name: 'sam', email: 'sam@b.c', password: 'pw' })
    const res = await t.app.inject({ method: 'DELETE', url: '/users/sam@b.c' })
    assert.equal(res.statusCode, 204, res.body)
    expectDetail(await t.app.inject({ method: 'GET', url: '/users/sam@b.c' }), 400, 'Document not found')
    expectDetail(await t.app.inject({ method: 'DELETE', url: '/users/sam@b.c' }), 422, 'Document not deleted')
  })

  it('answers 422 "Document not created" for a second document with the same email', async () => {
    await createDoc(t.app, '/users', { name: 'tia', email: 'tia@b.c', password: 'pw' })
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'tia2', email: 'tia@b.c', password: 'pw' },
    })
    expectDetail(res, 422, 'Document not created')
    const matches = await getJson(t.app, `/users${filtersQuery({ email: 'tia@b.c' })}`)
    assert.deepEqual(
      matches.map((doc: { name: string }) => doc.name),
      ['tia'],
    )
  })

  it('creates exactly one of 20 concurrent creates with the same email', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.app.inject({ method: 'POST', url: '/users', payload: { name: `race${i}`, email: 'race@b.c', password: 'pw' } }),
      ),
    )
    const created = responses.filter((res) => res.statusCode === 201)
    assert.equal(created.length, 1, responses.map((res) => res.statusCode).join(','))
    for (const res of responses.filter((r) => r.statusCode !== 201)) expectDetail(res, 422, 'Document not created')
    const matches = await getJson(t.app, `/users${filtersQuery({ email: 'race@b.c' })}`)
    assert.equal(matches.length, 1)
    assert.equal(matches[0].name, created[0]!.json().name)
  })

  it('answers 422 "Document not updated" when a PATCH would give a document an email another one has', async () => {
    await createDoc(t.app, '/users', { name: 'uma', email: 'uma@b.c', password: 'pw' })
    await createDoc(t.app, '/users', { name: 'vic', email: 'vic@b.c', password: 'pw' })
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/users/vic@b.c',
      payload: { email: 'uma@b.c' },
    })
    expectDetail(res, 422, 'Document not updated')
    assert.equal((await getJson(t.app, '/users/vic@b.c')).name, 'vic')
    assert.equal((await getJson(t.app, '/users/uma@b.c')).name, 'uma')
  })

  it('documents the item path as /users/{email}', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const methods = Object.keys(spec.paths['/users/{email}'] ?? {}).filter((key) => key !== 'head')
    assert.deepEqual(methods.sort(), ['delete', 'get', 'patch', 'put'])
    assert.equal(spec.paths['/users/{id}'], undefined)
  })
})

describeEachStore("identifierField: 'email', on the change feed", (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users', identifierField: 'email' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  it("tells every event, a delete's too, by the identifier the item routes take (docs/events.md)", async () => {
    const feed = await EventStreamClient.open(t.app, '/users/_events')
    await createDoc(t.app, '/users', { name: 'rue', email: 'rue@b.c', password: 'pw' })
    assert.equal((await t.app.inject({ method: 'PATCH', url: '/users/rue@b.c', payload: { name: 'rue2' } })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/users/rue@b.c' })).statusCode, 204)
    const events = await feed.take(3)
    assert.deepEqual(events.map((event) => [event.event, event.data.id]), [['create', 'rue@b.c'], ['update', 'rue@b.c'], ['delete', 'rue@b.c']])
    feed.close()
  })
})
