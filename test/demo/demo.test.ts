import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { DriverDb } from 'fastify-mongo-crud'
import { buildApiApp, loadApiFile } from 'fastify-mongo-crud/api-file'
import { buildDemo } from '../../examples/build-demo.ts'
import type { App } from '../harness/app.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore } from '../harness/stores.ts'

/** The demo in code (examples/build-demo.ts, what `npm start` serves) and in a file (api.json, what `serve` serves). */
const DEMOS: Array<[string, (db: DriverDb) => Promise<FastifyInstance>]> = [
  ['examples/build-demo.ts', (db) => buildDemo(db)],
  ['api.json', async (db) => buildApiApp(await loadApiFile(new URL('../../api.json', import.meta.url).pathname), db, { fastify: { logger: false } })],
]

/** The demo app, exercised through its HTTP API on every store, built from code and from the file. */
for (const [source, build] of DEMOS) describeEachStore(`demo app (${source})`, (mode) => {
  let store: OpenedStore
  let app: App
  let ann: Json
  let bob: Json
  before(async () => {
    store = await mode.open()
    app = (await build(store.db)) as unknown as App
    await app.ready()
    ann = await createDoc(app, '/api/v2/users', { name: 'Ann', email: 'ann@example.com', password: 'secret-ann' })
    bob = await createDoc(app, '/api/v2/users', { name: 'Bob', email: 'bob@example.com', password: 'secret-bob', role: 'admin' })
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  describe('users', () => {
    it('never shows the password, in either API version', async () => {
      for (const url of ['/api/v1/users', `/api/v1/users/${ann.id}`, '/api/v2/users', '/api/v2/users/ann@example.com']) {
        const res = await app.inject(url)
        assert.equal(res.statusCode, 200, url)
        assert.doesNotMatch(res.body, /secret-|password/, url)
      }
    })

    it('serves version 1 with name and email only, version 2 with role and age', async () => {
      assert.deepEqual((await app.inject(`/api/v1/users/${ann.id}`)).json(), { id: ann.id, name: 'Ann', email: 'ann@example.com' })
      const v2 = (await app.inject('/api/v2/users/ann@example.com')).json()
      assert.deepEqual(v2, { id: ann.id, name: 'Ann', email: 'ann@example.com', role: 'member' })
    })

    it('lets only an admin delete a user', async () => {
      const carl = await createDoc(app, '/api/v2/users', { name: 'Carl', email: 'carl@example.com', password: 'secret-carl' })
      const refused = await app.inject({ method: 'DELETE', url: `/api/v1/users/${carl.id}` })
      assert.equal(refused.statusCode, 403)
      assert.deepEqual(refused.json(), { detail: 'Admin required' })
      assert.equal((await app.inject(`/api/v1/users/${carl.id}`)).statusCode, 200)
      const done = await app.inject({ method: 'DELETE', url: `/api/v1/users/${carl.id}`, headers: { 'x-role': 'admin' } })
      assert.equal(done.statusCode, 204)
    })

    it('keeps messages and addresses under each user', async () => {
      const message = await createDoc(app, `/api/v1/users/${ann.id}/messages`, { text: 'hello' })
      assert.equal(message.userId, ann.id)
      assert.deepEqual((await app.inject(`/api/v1/users/${bob.id}/messages`)).json(), [])
      const address = await createDoc(app, `/api/v1/users/${ann.id}/addresses`, { label: 'home', city: 'Lyon' })
      assert.match(address.id, /^[0-9a-f]{24}$/)
      assert.deepEqual((await app.inject(`/api/v1/users/${ann.id}/addresses`)).json(), [{ id: address.id, label: 'home', city: 'Lyon' }])
    })
  })

  describe('notes', () => {
    it('asks for the caller and only ever shows their own notes', async () => {
      assert.equal((await app.inject('/api/v2/notes')).statusCode, 401)
      const asAnn = { 'x-user': ann.id }
      const note = await createDoc(app, '/api/v2/notes', { title: 'mine', body: 'text', owner: ann.id }, asAnn)
      const forBob = await app.inject({ method: 'POST', url: '/api/v2/notes', payload: { title: 'x', body: 'y', owner: bob.id }, headers: asAnn })
      assert.equal(forBob.statusCode, 403)
      assert.deepEqual((await app.inject({ url: '/api/v2/notes', headers: asAnn })).json().length, 1)
      assert.deepEqual((await app.inject({ url: '/api/v2/notes', headers: { 'x-user': bob.id } })).json(), [])
      const other = await app.inject({ url: `/api/v2/notes/${note.id}`, headers: { 'x-user': bob.id } })
      assert.equal(other.statusCode, 400)
      assert.deepEqual(other.json(), { detail: 'Document not found' })
    })
  })

  describe('counts, conditional writes and page links', () => {
    it("counts a caller's notes within their scope (Prefer: count=exact)", async () => {
      const asAnn = { 'x-user': ann.id }
      await createDoc(app, '/api/v2/notes', { title: 'one', body: 'b', owner: ann.id }, asAnn)
      await createDoc(app, '/api/v2/notes', { title: 'two', body: 'b', owner: ann.id }, asAnn)
      await createDoc(app, '/api/v2/notes', { title: 'bobs', body: 'b', owner: bob.id }, { 'x-user': bob.id })
      const res = await app.inject({ url: '/api/v2/notes?limit=1', headers: { ...asAnn, prefer: 'count=exact' } })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().length, 1)
      const mine = (await app.inject({ url: '/api/v2/notes', headers: asAnn })).json().length
      assert.equal(res.headers['x-total-count'], String(mine))
      assert.equal(res.headers['preference-applied'], 'count=exact')
    })

    it('answers an ETag, 304 while unchanged and 412 to a write with a stale If-Match', async () => {
      const got = await app.inject(`/api/v2/users/ann@example.com`)
      const etag = got.headers.etag as string
      assert.match(etag, /^"[^"]+"$/)
      assert.equal((await app.inject({ url: '/api/v2/users/ann@example.com', headers: { 'if-none-match': etag } })).statusCode, 304)
      const patched = await app.inject({ method: 'PATCH', url: '/api/v2/users/ann@example.com', payload: { age: 31 }, headers: { 'if-match': etag } })
      assert.equal(patched.statusCode, 200)
      assert.notEqual(patched.headers.etag, etag)
      const stale = await app.inject({ method: 'PATCH', url: '/api/v2/users/ann@example.com', payload: { age: 32 }, headers: { 'if-match': etag } })
      assert.equal(stale.statusCode, 412)
      assert.equal((await app.inject('/api/v2/users/ann@example.com')).json().age, 31)
    })

    it('links a sorted page to the next one until the last', async () => {
      const first = await app.inject('/api/v2/users?sort_by=name&limit=1')
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)
      assert.ok(link, 'the first page links to the next')
      const second = await app.inject(link[1]!)
      assert.equal(second.statusCode, 200)
      assert.notEqual(second.json()[0].id, first.json()[0].id)
      const all = (await app.inject('/api/v2/users?sort_by=name')).json()
      const last = await app.inject(`/api/v2/users?sort_by=name&limit=${all.length}`)
      assert.equal(last.headers.link, undefined)
    })
  })

  describe('music', () => {
    it('populates the artists of a track, without their contact e-mail', async () => {
      const artist = await createDoc(app, '/api/v2/artists', { name: 'Nina', country: 'US', contactEmail: 'nina@example.com' })
      const track = await createDoc(app, '/api/v2/tracks', { title: 'Sinnerman', durationSeconds: 622, artists: [artist.id] })
      // The create answers like GET one: the artists populated, the hidden e-mail left out.
      assert.deepEqual(track.artists, [{ id: artist.id, name: 'Nina', country: 'US' }])
      const got = (await app.inject(`/api/v2/tracks/${track.id}`)).json()
      assert.deepEqual(got, track)
    })
  })
})
