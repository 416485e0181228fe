import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { expectErrorShape, expectRefused } from './fixtures.ts'

/**
 * Lookup children belong to the parent in the path: a body cannot point a child at another parent,
 * and a child id cannot be reached through another parent's path.
 */
const Message = MongoModel('Message', { text: Type.String(), userId: ObjectIdField() })

describeEachStore('lookup children stay with the parent in the path', (mode) => {
  let t: TestApp
  let alice: Json
  let bob: Json
  let aliceMessage: Json
  before(async () => {
    t = await buildApp(mode, {
      model: User,
      collectionName: 'users',
      prefix: '/users',
      lookups: [new CRUDLookup({ model: Message, collectionName: 'messages', prefix: 'messages', localField: '_id', foreignField: 'userId' })],
    })
    alice = await createDoc(t.app, '/users', { name: 'alice', email: 'a@x', password: 'pw' })
    bob = await createDoc(t.app, '/users', { name: 'bob', email: 'b@x', password: 'pw' })
    aliceMessage = await createDoc(t.app, `/users/${alice.id}/messages`, { text: 'hello' })
  })
  after(() => t.close())

  const messagesOf = (user: Json) => getJson(t.app, `/users/${user.id}/messages`)

  it("answers 422 naming the foreign field for a create that names another parent, and creates nothing", async () => {
    const res = await t.app.inject({ method: 'POST', url: `/users/${alice.id}/messages`, payload: { text: 'planted', userId: bob.id } })
    expectRefused(res, 'userId')
    assert.deepEqual(await messagesOf(bob), [])
    assert.equal((await messagesOf(alice)).length, 1)
  })

  it('answers 422 for the foreign field given in another case or as a non-id', async () => {
    expectRefused(await t.app.inject({ method: 'POST', url: `/users/${alice.id}/messages`, payload: { text: 'x', userId: String(bob.id).toUpperCase() } }))
    expectRefused(await t.app.inject({ method: 'POST', url: `/users/${alice.id}/messages`, payload: { text: 'x', userId: { $oid: bob.id } } }))
    assert.deepEqual(await messagesOf(bob), [])
  })

  it('sets the foreign field from the path when the body leaves it out or repeats it', async () => {
    const left = await createDoc(t.app, `/users/${alice.id}/messages`, { text: 'left out' })
    const same = await createDoc(t.app, `/users/${alice.id}/messages`, { text: 'repeated', userId: alice.id })
    assert.equal(left.userId, alice.id)
    assert.equal(same.userId, alice.id)
  })

  it('answers 422 for a PUT or PATCH that moves a child to another parent, and moves nothing', async () => {
    const url = `/users/${alice.id}/messages/${aliceMessage.id}`
    expectRefused(await t.app.inject({ method: 'PUT', url, payload: { text: 'moved', userId: bob.id } }), 'userId')
    expectRefused(await t.app.inject({ method: 'PATCH', url, payload: { userId: bob.id } }), 'userId')
    const kept = await getJson(t.app, url)
    assert.equal(kept.userId, alice.id)
    assert.equal(kept.text, 'hello')
    assert.deepEqual(await messagesOf(bob), [])
  })

  it('answers 422 for a child PUT or PATCH whose body id is another child', async () => {
    const other = await createDoc(t.app, `/users/${alice.id}/messages`, { text: 'other' })
    const url = `/users/${alice.id}/messages/${aliceMessage.id}`
    expectRefused(await t.app.inject({ method: 'PUT', url, payload: { text: 'x', id: other.id } }), 'id')
    expectRefused(await t.app.inject({ method: 'PATCH', url, payload: { text: 'x', id: other.id } }), 'id')
    assert.equal((await getJson(t.app, url)).text, 'hello')
    assert.equal((await getJson(t.app, `/users/${alice.id}/messages/${other.id}`)).text, 'other')
  })

  it("cannot reach a child through another parent's path", async () => {
    const url = `/users/${bob.id}/messages/${aliceMessage.id}`
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { text: 'hijacked' }],
      ['PATCH', { text: 'hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.app.inject({ method, url, ...(payload === undefined ? {} : { payload }) })
      expectErrorShape(res)
    }
    const kept = await getJson(t.app, `/users/${alice.id}/messages/${aliceMessage.id}`)
    assert.equal(kept.text, 'hello')
    assert.equal(kept.userId, alice.id)
  })
})
