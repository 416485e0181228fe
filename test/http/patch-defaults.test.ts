import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * Schema `default`s fill omitted fields on create and replace only. A PATCH changes the keys it
 * sends and nothing else: filling defaults there would silently overwrite stored values
 * (an admin turned back into a member by a PATCH of their age).
 */
const Member = MongoModel('Member', {
  name: Type.String(),
  age: Type.Optional(Type.Integer()),
  role: Type.String({ default: 'member' }),
  prefs: Type.Optional(Type.Object({ theme: Type.String({ default: 'light' }), size: Type.Optional(Type.Integer()) })),
  default: Type.Optional(Type.Boolean()),
})
const Badge = MongoModel('Badge', { label: Type.String(), level: Type.Integer({ default: 1 }) })
const Post = MongoModel('Post', { title: Type.String(), memberId: ObjectIdField(), status: Type.String({ default: 'draft' }) })

describeEachStore('PATCH never applies schema defaults', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, {
      model: Member,
      collectionName: 'members',
      prefix: '/members',
      embeds: [new CRUDEmbed({ model: Badge, embedName: 'badges' })],
      lookups: [new CRUDLookup({ model: Post, collectionName: 'posts', prefix: 'posts', localField: '_id', foreignField: 'memberId' })],
    })
  })
  after(() => t.close())

  it('fills defaults on create and on replace', async () => {
    const doc = await createDoc(t.app, '/members', { name: 'ann' })
    assert.equal(doc.role, 'member')
    const res = await t.app.inject({ method: 'PUT', url: `/members/${doc.id}`, payload: { name: 'ann', prefs: {} } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().role, 'member')
    assert.deepEqual(res.json().prefs, { theme: 'light' })
  })

  it('keeps a stored value of a field with a default that the PATCH omits', async () => {
    const doc = await createDoc(t.app, '/members', { name: 'root', role: 'admin' })
    const res = await t.app.inject({ method: 'PATCH', url: `/members/${doc.id}`, payload: { age: 42 } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().role, 'admin')
    assert.equal((await getJson(t.app, `/members/${doc.id}`)).role, 'admin')
  })

  it('still accepts a field named "default" in a PATCH', async () => {
    const doc = await createDoc(t.app, '/members', { name: 'dee' })
    const res = await t.app.inject({ method: 'PATCH', url: `/members/${doc.id}`, payload: { default: true } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().default, true)
  })

  it('keeps a stored embedded item field with a default that the PATCH omits', async () => {
    const doc = await createDoc(t.app, '/members', { name: 'bea' })
    const badge = await createDoc(t.app, `/members/${doc.id}/badges`, { label: 'gold', level: 3 })
    const res = await t.app.inject({ method: 'PATCH', url: `/members/${doc.id}/badges/${badge.id}`, payload: { label: 'platinum' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: badge.id, label: 'platinum', level: 3 })
  })

  it('keeps a stored lookup child field with a default that the PATCH omits', async () => {
    const doc = await createDoc(t.app, '/members', { name: 'cy' })
    const post = await createDoc(t.app, `/members/${doc.id}/posts`, { title: 'hello', status: 'published' })
    const res = await t.app.inject({ method: 'PATCH', url: `/members/${doc.id}/posts/${post.id}`, payload: { title: 'hi' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().status, 'published')
  })

  it('shows no default in the OpenAPI of PATCH bodies', async () => {
    const spec: Json = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const schemas = spec.components.schemas
    const patchDefaults = [
      schemas.MemberPatch.properties.role,
      schemas.MemberPatch.properties.prefs.properties.theme,
      schemas.BadgePatch.properties.level,
      schemas.PostPatch.properties.status,
    ].map((field) => field.default)
    assert.deepEqual(patchDefaults, [undefined, undefined, undefined, undefined])
    assert.equal(schemas.Member.properties.role.default, 'member', 'the create body lost its defaults')
  })
})
