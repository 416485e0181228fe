import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { ObjectId } from 'mongodb'
import { buildApp, buildAppWith, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Note, User, UserOut } from '../harness/models.ts'
import { StoreCallCounter } from '../harness/relations.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const KEY = 'a-secret-of-sixteen-or-more'
const hal = { name: 'hal', email: 'hal@example.com', password: 'pw', age: 60, city: 'Lima' }

describeEachStore('conditional requests: ETag, If-None-Match, If-Match', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, modelOut: UserOut, collectionName: 'users', prefix: '/users', etagKey: KEY })
  })
  after(() => t.close())

  async function created(): Promise<{ doc: Json, tag: string }> {
    const res = await t.app.inject({ method: 'POST', url: '/users', payload: hal })
    assert.equal(res.statusCode, 201, res.body)
    const tag = res.headers.etag
    assert.equal(typeof tag, 'string')
    return { doc: res.json(), tag: tag as string }
  }
  const get = (id: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/users/${id}`, headers })

  it('GET one answers the same strong ETag as the create, and the same on every read', async () => {
    const { doc, tag } = await created()
    assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/)
    assert.equal((await get(doc.id)).headers.etag, tag)
    assert.equal((await get(doc.id)).headers.etag, tag)
    const other = await created()
    assert.notEqual(other.tag, tag, 'two documents (different ids) have different tags')
  })

  it('If-None-Match answers 304 without a body when it names the current tag (weak comparison, lists, *)', async () => {
    const { doc, tag } = await created()
    for (const header of [tag, `W/${tag}`, `"nope", ${tag}`, `W/"x",W/${tag}`, '*']) {
      const res = await get(doc.id, { 'if-none-match': header })
      assert.equal(res.statusCode, 304, `If-None-Match: ${header}`)
      assert.equal(res.body, '')
      assert.equal(res.headers.etag, tag)
    }
    const stale = await get(doc.id, { 'if-none-match': '"nope", W/"other"' })
    assert.equal(stale.statusCode, 200)
    assert.equal(stale.json().name, 'hal')
  })

  it('PATCH and PUT answer the new ETag, which GET one then answers too', async () => {
    const { doc, tag } = await created()
    const patched = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.notEqual(patched.headers.etag, tag)
    assert.equal((await get(doc.id)).headers.etag, patched.headers.etag)
    const replaced = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: { ...hal, name: 'hal2' } })
    assert.equal(replaced.statusCode, 200, replaced.body)
    assert.notEqual(replaced.headers.etag, patched.headers.etag)
    assert.equal((await get(doc.id)).headers.etag, replaced.headers.etag)
    // The old tag no longer matches: a 200 with the new document.
    assert.equal((await get(doc.id, { 'if-none-match': tag })).statusCode, 200)
  })

  it('If-Match with the current tag (alone, in a list, or *) lets PATCH, PUT and DELETE through', async () => {
    const { doc, tag } = await created()
    const patched = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' }, headers: { 'if-match': tag } })
    assert.equal(patched.statusCode, 200, patched.body)
    const newTag = patched.headers.etag as string
    const replaced = await t.app.inject({ method: 'PUT', url: `/users/${doc.id}`, payload: hal, headers: { 'if-match': `"x", ${newTag}` } })
    assert.equal(replaced.statusCode, 200, replaced.body)
    const starred = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { age: 61 }, headers: { 'if-match': '*' } })
    assert.equal(starred.statusCode, 200, starred.body)
    const removed = await t.app.inject({ method: 'DELETE', url: `/users/${doc.id}`, headers: { 'if-match': starred.headers.etag as string } })
    assert.equal(removed.statusCode, 204, removed.body)
    assert.equal(removed.headers.etag, undefined)
  })

  it('stores nothing of its own: the stored document holds the fields written, no version field', async () => {
    const { doc, tag } = await created()
    await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' }, headers: { 'if-match': tag } })
    const stored = await t.store.db.collection('users').findOne({ _id: new ObjectId(doc.id) })
    assert.deepEqual(Object.keys(stored ?? {}).sort(), ['_id', 'age', 'city', 'email', 'name', 'password'])
  })

  it('If-Match with another tag answers 412 with a detail on PATCH, PUT and DELETE, and changes nothing', async () => {
    const { doc, tag } = await created()
    const changed = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' } })
    const current = changed.headers.etag as string
    const attempts = [
      { method: 'PATCH' as const, payload: { city: 'Lost' } },
      { method: 'PUT' as const, payload: { ...hal, city: 'Lost' } },
      { method: 'DELETE' as const },
    ]
    for (const attempt of attempts) {
      for (const header of [tag, `W/${current}`, '"garbage"', 'not a tag']) {
        const res = await t.app.inject({ ...attempt, url: `/users/${doc.id}`, headers: { 'if-match': header } })
        assert.equal(res.statusCode, 412, `${attempt.method} If-Match: ${header}: ${res.body}`)
        expectDetail(res, 412, 'Precondition failed: the document has changed (If-Match names another version)')
      }
    }
    const now = await get(doc.id)
    assert.equal(now.headers.etag, current)
    assert.equal(now.json().name, 'hal')
  })

  it('a write made outside the router (another app, a hidden field) changes the tag, and If-Match sees it', async () => {
    const { doc, tag } = await created()
    // `password` is hidden by UserOut: the representation stays the same, the stored document does not.
    await t.store.db.collection('users').updateOne({ _id: new ObjectId(doc.id) }, { $set: { password: 'changed elsewhere' } })
    const res = await get(doc.id, { 'if-none-match': tag })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json(), doc)
    assert.notEqual(res.headers.etag, tag)
    const patched = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'Quito' }, headers: { 'if-match': tag } })
    assert.equal(patched.statusCode, 412, patched.body)
    // A field the model does not declare, added by another app, counts as well.
    const before = (await get(doc.id)).headers.etag
    await t.store.db.collection('users').updateOne({ _id: new ObjectId(doc.id) }, { $set: { legacy: 1 } })
    assert.notEqual((await get(doc.id)).headers.etag, before)
  })

  it('a missing document keeps its usual answer whatever If-Match says (never 412)', async () => {
    const missing = new ObjectId().toHexString()
    for (const header of ['"x"', '*']) {
      expectDetail(await t.app.inject({ method: 'PATCH', url: `/users/${missing}`, payload: { city: 'x' }, headers: { 'if-match': header } }), 422, 'Document not updated')
      expectDetail(await t.app.inject({ method: 'PUT', url: `/users/${missing}`, payload: hal, headers: { 'if-match': header } }), 422, 'Document not replaced')
      expectDetail(await t.app.inject({ method: 'DELETE', url: `/users/${missing}`, headers: { 'if-match': header } }), 422, 'Document not deleted')
    }
    expectDetail(await get(missing, { 'if-none-match': '*' }), 400, 'Document not found')
  })

  it('If-None-Match: * on create refuses an id that exists (412) and creates a new one', async () => {
    const id = new ObjectId().toHexString()
    const first = await t.app.inject({ method: 'POST', url: '/users', payload: { ...hal, id }, headers: { 'if-none-match': '*' } })
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.headers.etag, (await get(id)).headers.etag)
    const again = await t.app.inject({ method: 'POST', url: '/users', payload: { ...hal, id, name: 'other' }, headers: { 'if-none-match': '*' } })
    expectDetail(again, 412, 'Precondition failed: a document with this id already exists (If-None-Match: *)')
    assert.equal((await getJson(t.app, `/users/${id}`)).name, 'hal')
    // Without the header the duplicate keeps its usual answer; without an id the server picks a new one.
    expectDetail(await t.app.inject({ method: 'POST', url: '/users', payload: { ...hal, id } }), 422, 'Document not created')
    const fresh = await t.app.inject({ method: 'POST', url: '/users', payload: hal, headers: { 'if-none-match': '*' } })
    assert.equal(fresh.statusCode, 201, fresh.body)
  })
})

describeEachStore('conditional requests in the OpenAPI document', (mode) => {
  it('shows the headers each route reads, the ETag it answers, and 304 and 412', async () => {
    const t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const headerParams = (op: Json) => (op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name)
      const item = spec.paths['/users/{id}']
      assert.deepEqual(headerParams(item.get), ['if-none-match'])
      assert.ok(item.get.responses['304'], 'GET one documents 304')
      assert.equal(item.get.responses['304'].content, undefined, '304 has no body')
      assert.deepEqual(Object.keys(item.get.responses['200'].headers), ['ETag'])
      for (const method of ['put', 'patch', 'delete']) {
        assert.deepEqual(headerParams(item[method]), ['if-match'], method)
        assert.equal(item[method].responses['412'].content['application/json'].schema.$ref, '#/components/schemas/HTTPError', method)
      }
      assert.deepEqual(Object.keys(item.put.responses['200'].headers), ['ETag'])
      assert.deepEqual(Object.keys(item.patch.responses['200'].headers), ['ETag'])
      const create = spec.paths['/users'].post
      assert.deepEqual(headerParams(create), ['if-none-match'])
      assert.ok(create.responses['412'])
      assert.deepEqual(Object.keys(create.responses['201'].headers), ['Location', 'ETag'])
    } finally {
      await t.close()
    }
  })
})

describeEachStore('conditional requests: what they cost', (mode) => {
  it('a write without If-Match runs the same database calls as before; with it, one read more', async () => {
    const counter = new StoreCallCounter()
    const t = await buildAppWith(mode, { wrapDb: (db) => counter.wrap(db) }, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const doc = await createDoc(t.app, '/users', hal)
      counter.reset()
      const plain = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'a' } })
      assert.deepEqual(counter.snapshot(), { 'users.findOneAndUpdate': 1 })
      counter.reset()
      await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, payload: { city: 'b' }, headers: { 'if-match': plain.headers.etag as string } })
      assert.deepEqual(counter.snapshot(), { 'users.findOne': 1, 'users.findOneAndUpdate': 1 })
    } finally {
      await t.close()
    }
  })
})

describeEachStore('conditional requests on a large document', (mode) => {
  it('a PATCH with If-Match of a 9 MB document (its copy travels in the filter) applies', { timeout: 60_000 }, async () => {
    const t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const id = new ObjectId()
      await t.store.db.collection('users').insertOne({ _id: id, name: 'x'.repeat(9_000_000), email: 'e', password: 'p' })
      const tag = (await t.app.inject({ method: 'GET', url: `/users/${id}` })).headers.etag as string
      const res = await t.app.inject({ method: 'PATCH', url: `/users/${id}`, payload: { city: 'a' }, headers: { 'if-match': tag } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().city, 'a')
      const stale = await t.app.inject({ method: 'PATCH', url: `/users/${id}`, payload: { city: 'b' }, headers: { 'if-match': tag } })
      assert.equal(stale.statusCode, 412)
    } finally {
      await t.close()
    }
  })
})

describeEachStore('conditional requests: the ETag key', (mode) => {
  it('routers with the same etagKey agree on a tag (instances of one app); another key gives another tag', async () => {
    const options = { model: User, collectionName: 'users', prefix: '/users' }
    const one = await buildApp(mode, { ...options, etagKey: KEY }, { ...options, prefix: '/again', etagKey: KEY }, { ...options, prefix: '/other', etagKey: `${KEY}-2` })
    try {
      const doc = await createDoc(one.app, '/users', hal)
      const tagAt = async (prefix: string) => (await one.app.inject({ method: 'GET', url: `${prefix}/${doc.id}` })).headers.etag
      assert.equal(await tagAt('/again'), await tagAt('/users'))
      assert.notEqual(await tagAt('/other'), await tagAt('/users'))
    } finally {
      await one.close()
    }
  })

  it('refuses a short etagKey at registration', async () => {
    await assert.rejects(buildApp(mode, { model: User, collectionName: 'users', etagKey: 'short' }), /'etagKey' must be a secret of 16 characters or more/)
  })
})

describeEachStore('conditional requests under a filterDependency scope', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      notFoundStatus: 404,
      filterDependency: async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) }),
    })
  })
  after(() => t.close())

  it("a document outside the caller's scope answers as missing, before If-Match is looked at (no 412)", async () => {
    const mine = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 't' }, headers: { 'x-user': 'ann' } })
    assert.equal(mine.statusCode, 201, mine.body)
    const id = mine.json().id
    const tag = mine.headers.etag as string
    const as = (user: string, headers: Record<string, string>) => ({ 'x-user': user, ...headers })
    for (const header of [tag, '"stale"']) {
      expectDetail(await t.app.inject({ method: 'GET', url: `/notes/${id}`, headers: as('bob', { 'if-none-match': header }) }), 404, 'Document not found')
      expectDetail(await t.app.inject({ method: 'PATCH', url: `/notes/${id}`, payload: { title: 'x' }, headers: as('bob', { 'if-match': header }) }), 422, 'Document not updated')
      expectDetail(await t.app.inject({ method: 'PUT', url: `/notes/${id}`, payload: { title: 'x', owner: 'bob' }, headers: as('bob', { 'if-match': header }) }), 422, 'Document not replaced')
      expectDetail(await t.app.inject({ method: 'DELETE', url: `/notes/${id}`, headers: as('bob', { 'if-match': header }) }), 422, 'Document not deleted')
    }
    // In scope: the tag works as anywhere else.
    const stale = await t.app.inject({ method: 'PATCH', url: `/notes/${id}`, payload: { title: 'x' }, headers: as('ann', { 'if-match': '"stale"' }) })
    assert.equal(stale.statusCode, 412, stale.body)
    const ok = await t.app.inject({ method: 'PATCH', url: `/notes/${id}`, payload: { title: 'x' }, headers: as('ann', { 'if-match': tag }) })
    assert.equal(ok.statusCode, 200, ok.body)
    // A write that would leave the scope is still 403 with the right tag.
    const away = await t.app.inject({ method: 'PATCH', url: `/notes/${id}`, payload: { owner: 'bob' }, headers: as('ann', { 'if-match': ok.headers.etag as string }) })
    assert.equal(away.statusCode, 403, away.body)
  })
})
