import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { OBJECT_ID } from '../harness/expect.ts'
import { User, UserOut } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('modelOut shapes every response', (mode) => {
  let t: TestApp
  const input = { name: 'lea', email: 'lea@example.com', password: 'hunter2', age: 33 }
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, modelOut: UserOut, collectionName: 'users', prefix: '/users' },
      // a second router over the same collection without an output model, to see what is stored
      { model: User, collectionName: 'users', prefix: '/raw-users' },
    )
  })
  after(() => t.close())

  function assertShaped(body: unknown, name: string, email: string): void {
    const doc = body as Record<string, unknown>
    assert.deepEqual(Object.keys(doc).sort(), ['email', 'id', 'name'])
    assert.match(String(doc.id), OBJECT_ID)
    assert.equal(doc.name, name)
    assert.equal(doc.email, email)
  }

  it('POST answers the output model, without password', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/users', payload: input })
    assert.equal(res.statusCode, 201, res.body)
    assertShaped(res.json(), input.name, input.email)
    assert.ok(!res.body.includes('hunter2'))
  })

  it('still stores the hidden fields', async () => {
    const doc = await createDoc(t.app, '/users', { ...input, name: 'lea-stored' })
    const raw = await getJson(t.app, `/raw-users/${doc.id}`)
    assert.equal(raw.password, 'hunter2')
    assert.equal(raw.age, 33)
  })

  it('GET one answers the output model, without password', async () => {
    const doc = await createDoc(t.app, '/users', { ...input, name: 'lea-get' })
    const res = await t.app.inject({ method: 'GET', url: `/users/${doc.id}` })
    assert.equal(res.statusCode, 200, res.body)
    assertShaped(res.json(), 'lea-get', input.email)
    assert.ok(!res.body.includes('hunter2'))
  })

  it('GET list answers the output model for every document, without password', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/users' })
    assert.equal(res.statusCode, 200, res.body)
    const docs = res.json()
    assert.ok(docs.length >= 3, res.body)
    for (const doc of docs) assertShaped(doc, doc.name, input.email)
    assert.ok(!res.body.includes('hunter2'))
  })

  it('PUT answers the output model, without password', async () => {
    const doc = await createDoc(t.app, '/users', { ...input, name: 'lea-put' })
    const res = await t.app.inject({
      method: 'PUT',
      url: `/users/${doc.id}`,
      payload: { ...input, name: 'lea-put2', password: 'hunter3' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assertShaped(res.json(), 'lea-put2', input.email)
    assert.ok(!res.body.includes('hunter3'))
  })

  it('PATCH answers the output model, without password, even when the password is what changed', async () => {
    const doc = await createDoc(t.app, '/users', { ...input, name: 'lea-patch' })
    const res = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { password: 'hunter4' } })
    assert.equal(res.statusCode, 200, res.body)
    assertShaped(res.json(), 'lea-patch', input.email)
    assert.ok(!res.body.includes('hunter4'))
    assert.equal((await getJson(t.app, `/raw-users/${doc.id}`)).password, 'hunter4')
  })
})
