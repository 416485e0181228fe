import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import type { TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Address, Artist, ArtistOut, Author, buildRelationsApp, Message, Person, Track, TrackOut } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const messages = new CRUDLookup({ model: Message, collectionName: 'messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })
const addresses = new CRUDEmbed({ model: Address, embedName: 'addresses' })

/** The two kinds of child routes, with what each takes as a body. */
const kinds = [
  { kind: 'lookup children', parent: '/authors', parentBody: { name: 'ann' }, child: 'messages', body: { text: 'hi' }, patch: { text: 'yo' }, put: { text: 'put' }, clientIds: false },
  { kind: 'embedded items', parent: '/people', parentBody: { name: 'bob' }, child: 'addresses', body: { street: 's', city: 'Rome' }, patch: { city: 'Oslo' }, put: undefined, clientIds: true },
]

describeEachStore('conditional requests on child routes', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(
      mode,
      {},
      { model: Author, collectionName: 'authors', prefix: '/authors', lookups: [messages] },
      { model: Person, collectionName: 'people', prefix: '/people', embeds: [addresses] },
    )
  })
  after(() => t.close())

  for (const k of kinds) {
    async function child(): Promise<{ url: string, listUrl: string, tag: string }> {
      const parent = await createDoc(t.app, k.parent, k.parentBody)
      const listUrl = `${k.parent}/${parent.id}/${k.child}`
      const res = await t.app.inject({ method: 'POST', url: listUrl, payload: k.body })
      assert.equal(res.statusCode, 201, res.body)
      return { url: `${listUrl}/${res.json().id}`, listUrl, tag: res.headers.etag as string }
    }

    it(`${k.kind}: the create's ETag is GET one's, and If-None-Match answers 304`, async () => {
      const { url, tag } = await child()
      assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/)
      const got = await t.app.inject({ method: 'GET', url })
      assert.equal(got.headers.etag, tag)
      for (const header of [tag, `W/${tag}`, `"x", ${tag}`, '*']) {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': header } })
        assert.equal(res.statusCode, 304, header)
        assert.equal(res.body, '')
      }
      assert.equal((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"x"' } })).statusCode, 200)
    })

    it(`${k.kind}: PATCH${k.put === undefined ? '' : ', PUT'} and DELETE answer 412 on another tag and apply on the current one`, async () => {
      const { url, tag } = await child()
      const patched = await t.app.inject({ method: 'PATCH', url, payload: k.patch, headers: { 'if-match': tag } })
      assert.equal(patched.statusCode, 200, patched.body)
      const current = patched.headers.etag as string
      assert.notEqual(current, tag)
      assert.equal((await t.app.inject({ method: 'GET', url })).headers.etag, current)
      const stale = [
        { method: 'PATCH' as const, payload: k.patch },
        ...(k.put === undefined ? [] : [{ method: 'PUT' as const, payload: k.put }]),
        { method: 'DELETE' as const },
      ]
      for (const attempt of stale) {
        const res = await t.app.inject({ ...attempt, url, headers: { 'if-match': tag } })
        expectDetail(res, 412, 'Precondition failed: the document has changed (If-Match names another version)')
      }
      assert.equal((await t.app.inject({ method: 'GET', url })).headers.etag, current, 'the refused writes changed nothing')
      let latest = current
      if (k.put !== undefined) {
        const put = await t.app.inject({ method: 'PUT', url, payload: k.put, headers: { 'if-match': current } })
        assert.equal(put.statusCode, 200, put.body)
        assert.equal((await t.app.inject({ method: 'GET', url })).headers.etag, put.headers.etag)
        latest = put.headers.etag as string
      }
      const removed = await t.app.inject({ method: 'DELETE', url, headers: { 'if-match': latest } })
      assert.equal(removed.statusCode, 204, removed.body)
    })

    it(`${k.kind}: a missing child keeps its usual answer with If-Match (never 412)`, async () => {
      const { listUrl } = await child()
      const missing = `${listUrl}/${new ObjectId().toHexString()}`
      expectDetail(await t.app.inject({ method: 'PATCH', url: missing, payload: k.patch, headers: { 'if-match': '"x"' } }), 422, 'Document not updated')
      expectDetail(await t.app.inject({ method: 'DELETE', url: missing, headers: { 'if-match': '"x"' } }), 422, 'Document not deleted')
      const noParent = `${k.parent}/${new ObjectId().toHexString()}/${k.child}/${new ObjectId().toHexString()}`
      expectDetail(await t.app.inject({ method: 'PATCH', url: noParent, payload: k.patch, headers: { 'if-match': '"x"' } }), 400, 'Document not found')
    })

    it(`${k.kind}: If-None-Match: * on create refuses a taken id (412) and adds a new one`, async () => {
      const { listUrl } = await child()
      const id = new ObjectId().toHexString()
      const first = await t.app.inject({ method: 'POST', url: listUrl, payload: { ...k.body, id }, headers: { 'if-none-match': '*' } })
      assert.equal(first.statusCode, 201, first.body)
      const again = await t.app.inject({ method: 'POST', url: listUrl, payload: { ...k.body, id }, headers: { 'if-none-match': '*' } })
      if (!k.clientIds) {
        // A lookup child's id is always the server's (a body id is ignored): every create is a new id.
        assert.equal(again.statusCode, 201, again.body)
        assert.notEqual(again.json().id, first.json().id)
        return
      }
      expectDetail(again, 412, 'Precondition failed: a document with this id already exists (If-None-Match: *)')
      expectDetail(await t.app.inject({ method: 'POST', url: listUrl, payload: { ...k.body, id } }), 422, 'Document not created')
    })
  }
})

describeEachStore('conditional requests on child routes in the OpenAPI document', (mode) => {
  it('lookup and embed routes show the headers, the ETag, 304 and 412 as the main routes do', async () => {
    const t = await buildRelationsApp(
      mode,
      {},
      { model: Author, collectionName: 'authors', prefix: '/authors', lookups: [messages] },
      { model: Person, collectionName: 'people', prefix: '/people', embeds: [addresses] },
    )
    try {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const headerParams = (op: Json) => (op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name)
      for (const [list, one] of [['/authors/{id}/messages', '/authors/{id}/messages/{child_id}'], ['/people/{id}/addresses', '/people/{id}/addresses/{embed_id}']] as const) {
        const item = spec.paths[one]
        assert.deepEqual(headerParams(item.get), ['if-none-match'], one)
        assert.ok(item.get.responses['304'], one)
        assert.deepEqual(Object.keys(item.get.responses['200'].headers), ['ETag'])
        for (const method of ['put', 'patch', 'delete'].filter((m) => item[m] !== undefined)) {
          assert.deepEqual(headerParams(item[method]), ['if-match'], `${method} ${one}`)
          assert.ok(item[method].responses['412'], `${method} ${one}`)
        }
        assert.deepEqual(headerParams(spec.paths[list].post), ['if-none-match'], list)
        assert.ok(spec.paths[list].post.responses['412'], list)
        assert.deepEqual(Object.keys(spec.paths[list].post.responses['201'].headers), ['Location', 'ETag'])
      }
    } finally {
      await t.close()
    }
  })
})

describeEachStore('conditional requests on a router that populates references', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildRelationsApp(
      mode,
      {},
      { model: Artist, modelOut: ArtistOut, collectionName: 'artists', prefix: '/artists' },
      {
        model: Track,
        modelOut: TrackOut,
        collectionName: 'tracks',
        prefix: '/tracks',
        populates: [new CRUDPopulate({ field: 'artistIds', collection: 'artists', model: Artist, modelOut: ArtistOut })],
      },
    )
  })
  after(() => t.close())

  it('GET one never answers 304: the tag covers the document, not the documents it populates', async () => {
    const artist = await createDoc(t.app, '/artists', { name: 'ann', secret: 's' })
    const track = await createDoc(t.app, '/tracks', { title: 't', artistIds: [artist.id] })
    const url = `/tracks/${track.id}`
    const tag = (await t.app.inject({ method: 'GET', url })).headers.etag as string
    await t.app.inject({ method: 'PATCH', url: `/artists/${artist.id}`, payload: { name: 'renamed' } })
    const res = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': tag } })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers.etag, tag)
    assert.equal(res.json().artistIds[0].name, 'renamed')
    // If-Match still guards writes of the track itself.
    const stale = await t.app.inject({ method: 'PATCH', url, payload: { title: 'x' }, headers: { 'if-match': '"other"' } })
    assert.equal(stale.statusCode, 412, stale.body)
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    assert.equal(spec.paths['/tracks/{id}'].get.responses['304'], undefined)
  })
})
