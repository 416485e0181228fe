import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * PUT replaces the fields its router's input model declares and keeps every other field: two API
 * versions over one collection must not erase each other's data (v1 embeds addresses, v2 does not
 * know them).
 */
const Address = MongoModel('Address', { city: Type.String() })
const PersonV1 = MongoModel('PersonV1', { name: Type.String(), nickname: Type.Optional(Type.String()) })
const PersonV2 = MongoModel('PersonV2', { name: Type.String(), email: Type.Optional(Type.String()) })

describeEachStore('PUT keeps the fields its model does not declare', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: PersonV1, collectionName: 'people', prefix: '/v1/people', embeds: [new CRUDEmbed({ model: Address, embedName: 'addresses' })] },
      { model: PersonV2, collectionName: 'people', prefix: '/v2/people' },
    )
  })
  after(() => t.close())

  it("keeps the addresses that v1 embeds and v1's own fields after a PUT through v2", async () => {
    const person = await createDoc(t.app, '/v1/people', { name: 'ann', nickname: 'annie' })
    const address = await createDoc(t.app, `/v1/people/${person.id}/addresses`, { city: 'Oslo' })
    const res = await t.app.inject({ method: 'PUT', url: `/v2/people/${person.id}`, payload: { name: 'anna', email: 'a@x.org' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: person.id, name: 'anna', email: 'a@x.org' })
    assert.deepEqual(await getJson(t.app, `/v1/people/${person.id}/addresses`), [address])
    assert.deepEqual(await getJson(t.app, `/v1/people/${person.id}`), { id: person.id, name: 'anna', nickname: 'annie' })
  })

  it('still removes the fields of its own model that the body leaves out', async () => {
    const person = await createDoc(t.app, '/v2/people', { name: 'bo', email: 'bo@x.org' })
    const res = await t.app.inject({ method: 'PUT', url: `/v2/people/${person.id}`, payload: { name: 'bob' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await getJson(t.app, `/v2/people/${person.id}`), { id: person.id, name: 'bob' })
  })
})
