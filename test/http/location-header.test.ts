import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const Post = MongoModel('Post', { title: Type.String(), authorId: ObjectIdField() })
const Tag = MongoModel('Tag', { label: Type.String() })
const Sku = MongoModel('Sku', { code: Type.String(), name: Type.String() })

describeEachStore('Location on every 201', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      {
        model: User,
        collectionName: 'users',
        prefix: '/users',
        lookups: [new CRUDLookup({ model: Post, collectionName: 'posts', prefix: 'posts', localField: '_id', foreignField: 'authorId' })],
        embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })],
      },
      { model: Sku, collectionName: 'skus', prefix: '/skus', identifierField: 'code' },
    )
  })
  after(() => t.close())

  async function created(url: string, payload: Record<string, unknown>) {
    const res = await t.app.inject({ method: 'POST', url, payload })
    assert.equal(res.statusCode, 201, res.body)
    return { location: res.headers.location as string, body: res.json() }
  }

  it('a create answers Location, and GET on it answers the created document', async () => {
    const { location, body } = await created('/users', { name: 'ann', email: 'ann@x.org', password: 'pw' })
    assert.equal(location, `/users/${body.id}`)
    assert.deepEqual(await getJson(t.app, location), body)
  })

  it('a query in the create URL does not leak into Location', async () => {
    const { location, body } = await created('/users?x=1', { name: 'bea', email: 'bea@x.org', password: 'pw' })
    assert.equal(location, `/users/${body.id}`)
  })

  it('a router with an identifier field locates by that field', async () => {
    const { location } = await created('/skus', { code: 'a b/1', name: 'spaced' })
    assert.equal(location, '/skus/a%20b%2F1')
    assert.equal((await getJson(t.app, location)).name, 'spaced')
  })

  it('a lookup child and an embedded item are located under their parent', async () => {
    const { body: parent } = await created('/users', { name: 'cat', email: 'cat@x.org', password: 'pw' })
    const post = await created(`/users/${parent.id}/posts`, { title: 'hi' })
    assert.equal(post.location, `/users/${parent.id}/posts/${post.body.id}`)
    assert.equal((await getJson(t.app, post.location)).title, 'hi')
    const tag = await created(`/users/${parent.id}/tags`, { label: 'x' })
    assert.equal(tag.location, `/users/${parent.id}/tags/${tag.body.id}`)
    assert.equal((await getJson(t.app, tag.location)).label, 'x')
  })

  it('OpenAPI shows the Location header of each 201', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const path of ['/users', '/users/{id}/posts', '/users/{id}/tags', '/skus']) {
      assert.ok(spec.paths[path].post.responses['201'].headers?.Location, path)
    }
  })
})
