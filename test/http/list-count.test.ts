import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const Post = MongoModel('Post', { title: Type.String(), authorId: ObjectIdField() })
const Tag = MongoModel('Tag', { label: Type.String() })

describeEachStore('Prefer: count= on lists', (mode) => {
  let t: TestApp
  let ownerId: string
  before(async () => {
    t = await buildApp(mode, {
      model: User,
      collectionName: 'users',
      prefix: '/users',
      lookups: [new CRUDLookup({ model: Post, collectionName: 'posts', prefix: 'posts', localField: '_id', foreignField: 'authorId' })],
      embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })],
    })
    const users = await seedDocs(
      t.app,
      '/users',
      Array.from({ length: 12 }, (_, i) => ({ name: `u${i}`, email: `u${i}@example.com`, password: 'pw', age: i })),
    )
    ownerId = users[0].id
    for (const title of ['a', 'b', 'c']) await createDoc(t.app, `/users/${ownerId}/posts`, { title })
    await createDoc(t.app, `/users/${users[1].id}/posts`, { title: 'other' })
    for (const label of ['x', 'y']) await createDoc(t.app, `/users/${ownerId}/tags`, { label })
  })
  after(() => t.close())

  const list = (url: string, prefer?: string) =>
    t.app.inject({ method: 'GET', url, headers: prefer === undefined ? {} : { prefer } })

  it('count=exact gives X-Total-Count and Preference-Applied; the body stays the page array', async () => {
    const res = await list(`/users${queryString({ limit: 5, sort_by: 'age' })}`, 'count=exact')
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['x-total-count'], '12')
    assert.equal(res.headers['preference-applied'], 'count=exact')
    assert.equal(res.json().length, 5)
  })

  it('the count uses the filter (not skip or limit)', async () => {
    const res = await list(`/users${filtersQuery({ age: { $gte: 4 } }, { skip: 2, limit: 3 })}`, 'count=exact')
    assert.equal(res.headers['x-total-count'], '8')
    assert.equal(res.json().length, 3)
  })

  it('count=estimated without a filter reads the collection size', async () => {
    const res = await list('/users?limit=1', 'count=estimated')
    assert.equal(res.headers['x-total-count'], '12')
    assert.equal(res.headers['preference-applied'], 'count=estimated')
  })

  it('count=estimated with a filter counts exactly, and says so', async () => {
    const res = await list(`/users${filtersQuery({ age: { $lt: 3 } })}`, 'count=estimated')
    assert.equal(res.headers['x-total-count'], '3')
    assert.equal(res.headers['preference-applied'], 'count=exact')
  })

  it('no Prefer, or another preference, or an unknown count value: no count and no Preference-Applied', async () => {
    for (const prefer of [undefined, 'return=minimal', 'count=planned', 'count']) {
      const res = await list('/users?limit=2', prefer)
      assert.equal(res.statusCode, 200, String(prefer))
      assert.equal(res.headers['x-total-count'], undefined, String(prefer))
      assert.equal(res.headers['preference-applied'], undefined, String(prefer))
    }
  })

  it('count is found among several preferences, with parameters, in any case', async () => {
    const res = await list('/users?limit=2', 'return=minimal, Count=Exact; foo=bar')
    assert.equal(res.headers['x-total-count'], '12')
  })

  it('answers Vary: Prefer, so caches keep counted and plain answers apart', async () => {
    const res = await list('/users?limit=2')
    assert.match(String(res.headers.vary), /prefer/i)
  })

  it('a streamed (unbounded) list carries the count too', async () => {
    const res = await list('/users', 'count=exact')
    assert.equal(res.headers['x-total-count'], '12')
    assert.equal(res.json().length, 12)
  })

  it("a lookup's children list counts that parent's children only", async () => {
    const res = await list(`/users/${ownerId}/posts?limit=1`, 'count=estimated')
    assert.equal(res.headers['x-total-count'], '3')
    assert.equal(res.headers['preference-applied'], 'count=exact')
  })

  it('an embedded item list counts the matching items of its parent', async () => {
    const res = await list(`/users/${ownerId}/tags${filtersQuery({ label: 'x' })}`, 'count=exact')
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['x-total-count'], '1')
    const all = await list(`/users/${ownerId}/tags?limit=1`, 'count=exact')
    assert.equal(all.headers['x-total-count'], '2')
  })

  it('OpenAPI shows the Prefer header and the response headers', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const get = spec.paths['/users'].get
    assert.ok(get.parameters.some((p: { in: string, name: string }) => p.in === 'header' && p.name === 'prefer'))
    assert.deepEqual(Object.keys(get.responses['200'].headers).sort(), ['Link', 'Preference-Applied', 'X-Total-Count'])
  })
})
