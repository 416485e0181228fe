import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

function titles(docs: Json[]): string[] {
  return docs.map((doc) => doc.title).sort()
}

describeEachStore('filterDependency scopes the router', (mode) => {
  let t: TestApp
  let bobNote: Json
  let aliceNote: Json
  before(async () => {
    t = await buildApp(
      mode,
      // an unscoped router over the same collection, to seed and to look behind the scope
      { model: Note, collectionName: 'notes', prefix: '/all-notes' },
      {
        model: Note,
        collectionName: 'notes',
        prefix: '/notes',
        filterDependency: async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) }),
      },
    )
    const notes = await seedDocs(t.app, '/all-notes', [
      { title: 'a1', owner: 'alice' },
      { title: 'a2', owner: 'alice' },
      { title: 'a3', owner: 'alice' },
      { title: 'b1', owner: 'bob' },
      { title: 'b2', owner: 'bob' },
    ])
    aliceNote = notes[0]
    bobNote = notes[3]
  })
  after(() => t.close())

  it("lists only the caller's documents", async () => {
    assert.deepEqual(titles(await getJson(t.app, '/notes', asAlice)), ['a1', 'a2', 'a3'])
    assert.deepEqual(titles(await getJson(t.app, '/notes', asBob)), ['b1', 'b2'])
  })

  it('ignores client filters that would widen the scope', async () => {
    const url = `/notes${filtersQuery({ owner: 'bob' })}`
    assert.deepEqual(titles(await getJson(t.app, url, asAlice)), ['a1', 'a2', 'a3'])
  })

  it('ignores client filters that would narrow the scope', async () => {
    const url = `/notes${filtersQuery({ title: 'a1' })}`
    assert.deepEqual(titles(await getJson(t.app, url, asAlice)), ['a1', 'a2', 'a3'])
  })

  it('still sorts and pages the scoped list', async () => {
    const url = `/notes${queryString({ sort_by: 'title', order_by: 'DESC', skip: 1, limit: 1 })}`
    assert.deepEqual(
      (await getJson(t.app, url, asAlice)).map((doc: Json) => doc.title),
      ['a2'],
    )
  })

  it("reads the caller's own document", async () => {
    assert.deepEqual(await getJson(t.app, `/notes/${aliceNote.id}`, asAlice), aliceNote)
  })

  it('answers GET on a document outside the scope exactly as on a missing one', async () => {
    expectDetail(
      await t.app.inject({ method: 'GET', url: `/notes/${bobNote.id}`, headers: asAlice }),
      400,
      'Document not found',
    )
  })

  it('answers PUT on a document outside the scope exactly as on a missing one, and changes nothing', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/notes/${bobNote.id}`,
      headers: asAlice,
      payload: { title: 'hijacked', owner: 'alice' },
    })
    expectDetail(res, 422, 'Document not replaced')
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}`), bobNote)
  })

  it('answers PATCH on a document outside the scope exactly as on a missing one, and changes nothing', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/notes/${bobNote.id}`,
      headers: asAlice,
      payload: { title: 'hijacked' },
    })
    expectDetail(res, 422, 'Document not updated')
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}`), bobNote)
  })

  it('answers DELETE on a document outside the scope exactly as on a missing one, and deletes nothing', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `/notes/${bobNote.id}`, headers: asAlice })
    expectDetail(res, 422, 'Document not deleted')
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}`), bobNote)
  })

  it("updates and deletes the caller's own documents", async () => {
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/notes/${aliceNote.id}`,
      headers: asAlice,
      payload: { title: 'a1-edited' },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().title, 'a1-edited')
    const deleted = await t.app.inject({ method: 'DELETE', url: `/notes/${aliceNote.id}`, headers: asAlice })
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.deepEqual(titles(await getJson(t.app, '/notes', asAlice)), ['a2', 'a3'])
    assert.deepEqual(titles(await getJson(t.app, '/notes', asBob)), ['b1', 'b2'])
  })
})
