// Every route taking a body reads JSON only: any other content type is 415 (docs/http-contract.md),
// text/plain included, which Fastify would otherwise parse as a string and leave to validation (422).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDRouter, createApp, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

// Which parser a route has is decided at registration: the store does not matter.
const mode = storeModes[0]!

const Post = MongoModel('ContentPost', { title: Type.String(), authorId: ObjectIdField() })
const Tag = MongoModel('ContentTag', { label: Type.String() })

describe('request bodies other than JSON', () => {
  let t: TestApp
  const routes: Array<[method: 'POST' | 'PUT' | 'PATCH', url: string]> = []
  before(async () => {
    t = await buildApp(mode, {
      model: User,
      collectionName: 'users',
      prefix: '/users',
      lookups: [new CRUDLookup({ model: Post, collectionName: 'posts', prefix: 'posts', localField: '_id', foreignField: 'authorId' })],
      embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })],
    })
    const user = await createDoc(t.app, '/users', { name: 'u', email: 'u@example.com', password: 'pw' })
    const post = await createDoc(t.app, `/users/${user.id}/posts`, { title: 'p' })
    const tag = await createDoc(t.app, `/users/${user.id}/tags`, { label: 'l' })
    routes.push(
      ['POST', '/users'],
      ['PUT', `/users/${user.id}`],
      ['PATCH', `/users/${user.id}`],
      ['POST', `/users/${user.id}/posts`],
      ['PUT', `/users/${user.id}/posts/${post.id}`],
      ['PATCH', `/users/${user.id}/posts/${post.id}`],
      ['POST', `/users/${user.id}/tags`],
      ['PATCH', `/users/${user.id}/tags/${tag.id}`],
    )
  })
  after(() => t.close())

  for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'application/xml']) {
    it(`answers 415 to ${contentType} on every body route`, async () => {
      for (const [method, url] of routes) {
        const res = await t.app.inject({ method, url, payload: '{"title":"x"}', headers: { 'content-type': contentType } })
        assert.equal(res.statusCode, 415, `${method} ${url}: ${res.body}`)
        expectDetail(res, 415, 'Unsupported Media Type')
      }
    })
  }

  it('answers a DELETE (or GET) without a body whatever its Content-Type, and a body there with a clear error', async () => {
    const user = await createDoc(t.app, '/users', { name: 'd', email: 'd@example.com', password: 'pw' })
    for (const contentType of ['application/json', 'text/plain']) {
      const read = await t.app.inject({ method: 'GET', url: `/users/${user.id}`, headers: { 'content-type': contentType, 'content-length': '0' } })
      assert.equal(read.statusCode, 200, `${contentType}: ${read.body}`)
    }
    const junk = await t.app.inject({ method: 'DELETE', url: `/users/${user.id}`, payload: '{nope', headers: { 'content-type': 'application/json' } })
    assert.equal(junk.statusCode, 422, junk.body)
    assert.match(String(junk.json().detail), /JSON decode error/)
    const gone = await t.app.inject({ method: 'DELETE', url: `/users/${user.id}`, headers: { 'content-type': 'text/plain', 'content-length': '0' } })
    assert.equal(gone.statusCode, 204, gone.body)
  })

  it('answers a body route sent without a body and without a Content-Type 422, the PATCH routes too (it was 500)', async () => {
    for (const [method, url] of routes) {
      const res = await t.app.inject({ method, url })
      assert.equal(res.statusCode, 422, `${method} ${url}: ${res.body}`)
      assert.deepEqual(res.json().detail.map((issue: { loc: unknown }) => issue.loc), [['body']], `${method} ${url}: ${res.body}`)
    }
  })

  it('still reads application/json, with a charset too', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: JSON.stringify({ name: 'j', email: 'j@example.com', password: 'pw' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    assert.equal(res.statusCode, 201, res.body)
  })
})

describe("parsers of the app's own", () => {
  it("reach the app's routes, never a router's", async () => {
    const store = await mode.open()
    const app = await createApp({ fastify: { logger: false } })
    try {
      // A form parser the app adds for routes of its own, before the router registers.
      app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))))
      })
      app.post('/form', async (request) => request.body)
      await app.register(CRUDRouter, { model: User, db: store.db, collectionName: 'users', prefix: '/users' })
      await app.ready()
      const form = 'name=f&email=f%40example.com&password=pw'
      const headers = { 'content-type': 'application/x-www-form-urlencoded' }
      expectDetail(await app.inject({ method: 'POST', url: '/users', payload: form, headers }), 415, 'Unsupported Media Type')
      const own = await app.inject({ method: 'POST', url: '/form', payload: form, headers })
      assert.deepEqual([own.statusCode, own.json().name], [200, 'f'])
      // Fastify's default text parser stays the app's too.
      const text = await app.inject({ method: 'POST', url: '/form', payload: 'hello', headers: { 'content-type': 'text/plain' } })
      assert.deepEqual([text.statusCode, text.body], [200, 'hello'])
    } finally {
      await app.close()
      await store.close()
    }
  })
})
