import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDEmbed, CRUDLookup, HTTPException, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { buildRelationsApp } from '../harness/relations.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const NoteComment = MongoModel('NoteComment', { body: Type.String(), noteId: ObjectIdField() })
const NoteTag = MongoModel('NoteTag', { label: Type.String() })

const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

/** The eleven child routes of one parent: six lookup routes and five embed routes. */
function childRequests(parentId: string, commentId: string, tagId: string) {
  const comments = `/notes/${parentId}/comments`
  const tags = `/notes/${parentId}/tags`
  return [
    { method: 'GET', url: comments },
    { method: 'POST', url: comments, payload: { body: 'intruder' } },
    { method: 'GET', url: `${comments}/${commentId}` },
    { method: 'PUT', url: `${comments}/${commentId}`, payload: { body: 'intruder' } },
    { method: 'PATCH', url: `${comments}/${commentId}`, payload: { body: 'intruder' } },
    { method: 'DELETE', url: `${comments}/${commentId}` },
    { method: 'GET', url: tags },
    { method: 'POST', url: tags, payload: { label: 'intruder' } },
    { method: 'GET', url: `${tags}/${tagId}` },
    { method: 'PATCH', url: `${tags}/${tagId}`, payload: { label: 'intruder' } },
    { method: 'DELETE', url: `${tags}/${tagId}` },
  ] as const
}

describeEachStore('filterDependency scopes the parent of child routes', (mode) => {
  let t: TestApp
  let bobNote: Json
  let bobComment: Json
  let bobTag: Json
  before(async () => {
    const comments = new CRUDLookup({
      model: NoteComment,
      collectionName: 'comments',
      prefix: 'comments',
      localField: '_id',
      foreignField: 'noteId',
    })
    const tags = new CRUDEmbed({ model: NoteTag, embedName: 'tags' })
    t = await buildRelationsApp(
      mode,
      {},
      // unscoped, to seed and to look behind the scope
      { model: Note, collectionName: 'notes', prefix: '/all-notes', lookups: [comments], embeds: [tags] },
      {
        model: Note,
        collectionName: 'notes',
        prefix: '/notes',
        lookups: [comments],
        embeds: [tags],
        filterDependency: async (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) }),
      },
    )
    bobNote = await createDoc(t.app, '/all-notes', { title: 'b', owner: 'bob' })
    bobComment = await createDoc(t.app, `/all-notes/${bobNote.id}/comments`, { body: 'mine' })
    bobTag = await createDoc(t.app, `/all-notes/${bobNote.id}/tags`, { label: 'mine' })
  })
  after(() => t.close())

  it("serves the child routes of the caller's own document", async () => {
    const note = await createDoc(t.app, '/notes', { title: 'a', owner: 'alice' }, asAlice)
    const comment = await createDoc(t.app, `/notes/${note.id}/comments`, { body: 'hi' }, asAlice)
    const tag = await createDoc(t.app, `/notes/${note.id}/tags`, { label: 'red' }, asAlice)
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/comments`, asAlice), [comment])
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`, asAlice), [tag])
    assert.deepEqual(await getJson(t.app, `/notes/${bobNote.id}/comments`, asBob), [bobComment])
  })

  it("answers 400 'Document not found' on every child route of a parent outside the scope, and writes nothing", async () => {
    for (const request of childRequests(bobNote.id, bobComment.id, bobTag.id)) {
      const res = await t.app.inject({ ...request, headers: asAlice })
      assert.equal(res.statusCode, 400, `${request.method} ${request.url}: ${res.body}`)
      expectDetail(res, 400, 'Document not found')
    }
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}/comments`), [bobComment])
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}/tags`), [bobTag])
    assert.deepEqual(await getJson(t.app, `/all-notes/${bobNote.id}`), bobNote)
  })
})

describeEachStore('dependencies on child routes', (mode) => {
  let t: TestApp
  const calls: string[] = []
  const asUser = { 'x-user': 'u' }
  const asAdmin = { 'x-user': 'u', 'x-role': 'admin' }
  before(async () => {
    const requireUser = async (request: FastifyRequest) => {
      calls.push('parent:getOne')
      if (request.headers['x-user'] === undefined) throw new HTTPException(401, 'Login required')
    }
    const requireAdmin = (who: string) => async (request: FastifyRequest) => {
      calls.push(`${who}:deleteOne`)
      if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
    }
    t = await buildRelationsApp(mode, {}, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      dependenciesGetOne: [requireUser],
      lookups: [
        new CRUDLookup({
          model: NoteComment,
          collectionName: 'comments',
          prefix: 'comments',
          localField: '_id',
          foreignField: 'noteId',
          dependenciesDeleteOne: [requireAdmin('lookup')],
        }),
      ],
      embeds: [new CRUDEmbed({ model: NoteTag, embedName: 'tags', dependenciesDeleteOne: [requireAdmin('embed')] })],
    })
  })
  after(() => t.close())

  async function seed() {
    const note = await createDoc(t.app, '/notes', { title: 'n', owner: 'o' })
    const comment = await createDoc(t.app, `/notes/${note.id}/comments`, { body: 'c' }, asUser)
    const tag = await createDoc(t.app, `/notes/${note.id}/tags`, { label: 'l' }, asUser)
    calls.length = 0
    return { note, comment, tag }
  }

  it("refuses a non-admin lookup child delete with 403 'Admin required', and deletes nothing", async () => {
    const { note, comment } = await seed()
    const url = `/notes/${note.id}/comments/${comment.id}`
    expectDetail(await t.app.inject({ method: 'DELETE', url, headers: asUser }), 403, 'Admin required')
    assert.deepEqual(await getJson(t.app, url, asUser), comment)
  })

  it('lets an admin delete a lookup child, running the parent getOne dependency first', async () => {
    const { note, comment } = await seed()
    const url = `/notes/${note.id}/comments/${comment.id}`
    const res = await t.app.inject({ method: 'DELETE', url, headers: asAdmin })
    assert.equal(res.statusCode, 204, res.body)
    assert.deepEqual(calls, ['parent:getOne', 'lookup:deleteOne'])
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/comments`, asUser), [])
  })

  it("refuses a non-admin embed item delete with 403 'Admin required', and deletes nothing", async () => {
    const { note, tag } = await seed()
    const url = `/notes/${note.id}/tags/${tag.id}`
    expectDetail(await t.app.inject({ method: 'DELETE', url, headers: asUser }), 403, 'Admin required')
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`, asUser), [tag])
  })

  it('lets an admin delete an embed item, running the parent getOne dependency first', async () => {
    const { note, tag } = await seed()
    const res = await t.app.inject({ method: 'DELETE', url: `/notes/${note.id}/tags/${tag.id}`, headers: asAdmin })
    assert.equal(res.statusCode, 204, res.body)
    assert.deepEqual(calls, ['parent:getOne', 'embed:deleteOne'])
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`, asUser), [])
  })

  it("runs the parent's dependenciesGetOne on every child route: refused there, nothing runs or changes", async () => {
    const { note, comment, tag } = await seed()
    for (const request of childRequests(note.id, comment.id, tag.id)) {
      calls.length = 0
      const res = await t.app.inject(request)
      expectDetail(res, 401, 'Login required')
      assert.deepEqual(calls, ['parent:getOne'], `${request.method} ${request.url}`)
    }
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/comments`, asUser), [comment])
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`, asUser), [tag])
  })

  it('runs the declaration delete dependency on no other route', async () => {
    const { note, comment, tag } = await seed()
    for (const request of childRequests(note.id, comment.id, tag.id)) {
      if (request.method === 'DELETE') continue
      const res = await t.app.inject({ ...request, headers: asUser })
      assert.ok(res.statusCode < 300, `${request.method} ${request.url}: ${res.statusCode} ${res.body}`)
    }
    assert.ok(!calls.some((call) => call.endsWith(':deleteOne')), JSON.stringify(calls))
    // nor on the parent's own delete
    const res = await t.app.inject({ method: 'DELETE', url: `/notes/${note.id}` })
    assert.equal(res.statusCode, 204, res.body)
  })
})
