import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { MongoModelOut, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const UserOutV1 = MongoModelOut('UserOutV1', { name: Type.String() })
const UserOutV2 = MongoModelOut('UserOutV2', {
  name: Type.String(),
  email: Type.String(),
  age: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
})

describeEachStore('two versions of one collection side by side', (mode) => {
  let t: TestApp
  const input = { name: 'wes', email: 'wes@example.com', password: 'pw', age: 44 }
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, modelOut: UserOutV1, collectionName: 'users', prefix: '/api/v1/users' },
      { model: User, modelOut: UserOutV2, collectionName: 'users', prefix: '/api/v2/users' },
    )
  })
  after(() => t.close())

  it('v1 answers with the v1 output model', async () => {
    const created = await createDoc(t.app, '/api/v1/users', input)
    assert.deepEqual(created, { id: created.id, name: 'wes' })
    assert.deepEqual(await getJson(t.app, `/api/v1/users/${created.id}`), { id: created.id, name: 'wes' })
  })

  it('v2 serves the same documents with the v2 output model', async () => {
    const [doc] = await getJson(t.app, '/api/v1/users')
    assert.deepEqual(await getJson(t.app, `/api/v2/users/${doc.id}`), {
      id: doc.id,
      name: 'wes',
      email: 'wes@example.com',
      age: 44,
    })
    assert.deepEqual(await getJson(t.app, '/api/v2/users'), [
      { id: doc.id, name: 'wes', email: 'wes@example.com', age: 44 },
    ])
  })

  it('a write through v2 is visible through v1', async () => {
    const created = await createDoc(t.app, '/api/v2/users', { ...input, name: 'xia', email: 'xia@example.com' })
    assert.deepEqual(created, { id: created.id, name: 'xia', email: 'xia@example.com', age: 44 })
    const patched = await t.app.inject({ method: 'PATCH', url: `/api/v2/users/${created.id}`, payload: { name: 'xiu' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(await getJson(t.app, `/api/v1/users/${created.id}`), { id: created.id, name: 'xiu' })
  })

  it('documents both prefixes with their own output models', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const path of ['/api/v1/users', '/api/v1/users/{id}', '/api/v2/users', '/api/v2/users/{id}']) {
      assert.ok(spec.paths[path], `${path} is not documented`)
    }
    assert.ok(spec.components.schemas.UserOutV1, 'no UserOutV1 schema')
    assert.ok(spec.components.schemas.UserOutV2, 'no UserOutV2 schema')
  })
})
