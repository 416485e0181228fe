import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDLookup, type DriverDb, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { logCapture } from '../harness/log-capture.ts'
import { User, UserOut } from '../harness/models.ts'
import { createDoc, getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const Post = MongoModel('Post', { title: Type.String(), body: Type.String(), authorId: ObjectIdField() })

/** Records the projection of every find and findOne, to see `fields=` reach the database. */
function projectionSpy(seen: unknown[]): (db: DriverDb) => DriverDb {
  return (db) => ({
    collection(name: string) {
      const collection = db.collection(name)
      return new Proxy(collection, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver)
          if (key !== 'find' && key !== 'findOne') return typeof value === 'function' ? value.bind(target) : value
          return (filter: unknown, options?: { projection?: unknown }) => {
            seen.push(options?.projection)
            return (value as (...args: unknown[]) => unknown).call(target, filter, options)
          }
        },
      })
    },
  })
}

describeEachStore('fields= on lists and GET one', (mode) => {
  let t: TestApp
  let aliceId: string
  const projections: unknown[] = []
  const log = logCapture()
  before(async () => {
    t = await buildAppWith(
      mode,
      { wrapDb: projectionSpy(projections), fastify: { logger: { level: 'warn', stream: log.stream } } },
      {
        model: User,
        modelOut: UserOut,
        collectionName: 'users',
        prefix: '/users',
        lookups: [new CRUDLookup({ model: Post, collectionName: 'posts', prefix: 'posts', localField: '_id', foreignField: 'authorId' })],
      },
      { model: User, collectionName: 'open_users', prefix: '/open' },
    )
    const [alice] = await seedDocs(t.app, '/users', [
      { name: 'alice', email: 'alice@example.com', password: 'pw', age: 30 },
      { name: 'bob', email: 'bob@example.com', password: 'pw', age: 40 },
    ])
    aliceId = alice.id
    await createDoc(t.app, `/users/${aliceId}/posts`, { title: 'hello', body: 'long text' })
    await createDoc(t.app, '/open', { name: 'carol', email: 'carol@example.com', password: 'pw', age: 3 })
  })
  after(() => t.close())

  it('the list answers only the named fields, and id always', async () => {
    const docs = await getJson(t.app, '/users?fields=name&sort_by=name')
    assert.deepEqual(docs.map((doc: Record<string, unknown>) => Object.keys(doc).sort()), [['id', 'name'], ['id', 'name']])
    assert.deepEqual(docs.map((doc: { name: string }) => doc.name), ['alice', 'bob'])
  })

  it('the projection is pushed down to the database', async () => {
    projections.length = 0
    await getJson(t.app, '/users?fields=email,name&limit=5')
    assert.deepEqual(projections, [{ _id: 1, email: 1, name: 1 }])
  })

  it('a streamed (unbounded) list takes fields= too', async () => {
    const docs = await getJson(t.app, '/users?fields=email')
    assert.deepEqual(Object.keys(docs[0]).sort(), ['email', 'id'])
  })

  it('GET one answers only the named fields, read with a projection', async () => {
    projections.length = 0
    const doc = await getJson(t.app, `/users/${aliceId}?fields=email`)
    assert.deepEqual(doc, { id: aliceId, email: 'alice@example.com' })
    assert.deepEqual(projections, [{ _id: 1, email: 1 }])
  })

  it('a projection carries no ETag and never answers 304 (its tag could not pass an If-Match)', async () => {
    const whole = await t.app.inject({ method: 'GET', url: `/users/${aliceId}` })
    const etag = whole.headers.etag as string
    assert.ok(etag)
    for (const url of [`/users/${aliceId}?fields=email`, `/users/${aliceId}/posts/${(await getJson(t.app, `/users/${aliceId}/posts`))[0].id}?fields=title`]) {
      const projected = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '*' } })
      assert.equal(projected.statusCode, 200, url)
      assert.equal(projected.headers.etag, undefined, url)
    }
  })

  it('fields=id answers the ids alone', async () => {
    const doc = await getJson(t.app, `/users/${aliceId}?fields=id`)
    assert.deepEqual(doc, { id: aliceId })
  })

  it('an unknown field is a 422 naming it', async () => {
    for (const url of ['/users?fields=name,nope', `/users/${aliceId}?fields=nope`]) {
      const res = await t.app.inject({ method: 'GET', url })
      assert.equal(res.statusCode, 422, url)
      assert.match(res.json().detail, /"nope"/)
    }
  })

  it('an empty fields= is a 422', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/users?fields=' })
    assert.equal(res.statusCode, 422)
    assert.match(res.json().detail, /fields/)
  })

  it('without an output model every model field may be named', async () => {
    const docs = await getJson(t.app, '/open?fields=password,age')
    assert.deepEqual(docs, [{ id: docs[0].id, password: 'pw', age: 3 }])
  })

  it("a lookup's children list and GET one take fields=", async () => {
    const posts = await getJson(t.app, `/users/${aliceId}/posts?fields=title`)
    assert.deepEqual(Object.keys(posts[0]).sort(), ['id', 'title'])
    const one = await getJson(t.app, `/users/${aliceId}/posts/${posts[0].id}?fields=body`)
    assert.deepEqual(one, { id: posts[0].id, body: 'long text' })
  })

  it('fields left out are not reported as missing from the stored documents', () => {
    assert.deepEqual(log.warnings(), [])
  })

  it('OpenAPI shows the fields parameter on the list and on GET one', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const operation of [spec.paths['/users'].get, spec.paths['/users/{id}'].get]) {
      assert.ok(operation.parameters.some((p: { in: string, name: string }) => p.in === 'query' && p.name === 'fields'))
    }
  })
})
