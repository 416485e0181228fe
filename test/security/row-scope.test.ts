import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDEmbed, CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, type RouterOptions, type TestApp } from '../harness/app.ts'
import { ABSENT_ID } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { expectErrorShape } from './fixtures.ts'

/**
 * Row scopes that only covered the list route: `filterDependency` must hold on every route of its
 * router, child routes included, and a document outside the scope must be indistinguishable from a
 * missing one (same status, same body) and stay unchanged.
 */
const Comment = MongoModel('Comment', { body: Type.String(), noteId: ObjectIdField() })
const Attachment = MongoModel('Attachment', { name: Type.String() })

function notesRouter(prefix: string, scoped: boolean): RouterOptions {
  return {
    model: Note,
    collectionName: 'notes',
    prefix,
    lookups: [new CRUDLookup({ model: Comment, collectionName: 'comments', prefix: 'comments', localField: '_id', foreignField: 'noteId' })],
    embeds: [new CRUDEmbed({ model: Attachment, embedName: 'attachments' })],
    ...(scoped ? { filterDependency: async (request: FastifyRequest) => ({ owner: request.headers['x-user'] }) } : {}),
  }
}

const asAlice = { 'x-user': 'alice' }

interface Probe {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The path below `/notes/{id}`, with `{child}` standing for the target's child id. */
  path: string
  payload?: Record<string, unknown>
}

const PROBES: Record<string, Probe> = {
  'GET one': { method: 'GET', path: '' },
  PUT: { method: 'PUT', path: '', payload: { title: 'hijacked', owner: 'alice' } },
  PATCH: { method: 'PATCH', path: '', payload: { title: 'hijacked' } },
  DELETE: { method: 'DELETE', path: '' },
  'lookup list': { method: 'GET', path: '/comments' },
  'lookup create': { method: 'POST', path: '/comments', payload: { body: 'planted' } },
  'lookup GET one': { method: 'GET', path: '/comments/{comment}' },
  'lookup PUT': { method: 'PUT', path: '/comments/{comment}', payload: { body: 'hijacked' } },
  'lookup PATCH': { method: 'PATCH', path: '/comments/{comment}', payload: { body: 'hijacked' } },
  'lookup DELETE': { method: 'DELETE', path: '/comments/{comment}' },
  'embed list': { method: 'GET', path: '/attachments' },
  'embed create': { method: 'POST', path: '/attachments', payload: { name: 'planted' } },
  'embed GET one': { method: 'GET', path: '/attachments/{attachment}' },
  'embed PATCH': { method: 'PATCH', path: '/attachments/{attachment}', payload: { name: 'hijacked' } },
  'embed DELETE': { method: 'DELETE', path: '/attachments/{attachment}' },
}

describeEachStore('filterDependency holds on every route', (mode) => {
  let t: TestApp
  let bobNote: Json
  let bobComment: Json
  let bobAttachment: Json
  let aliceNote: Json
  before(async () => {
    t = await buildApp(mode, notesRouter('/all-notes', false), notesRouter('/notes', true))
    aliceNote = await createDoc(t.app, '/all-notes', { title: 'a1', owner: 'alice' })
    bobNote = await createDoc(t.app, '/all-notes', { title: 'b1', owner: 'bob' })
    bobComment = await createDoc(t.app, `/all-notes/${bobNote.id}/comments`, { body: 'bob says' })
    bobAttachment = await createDoc(t.app, `/all-notes/${bobNote.id}/attachments`, { name: 'bob.pdf' })
  })
  after(() => t.close())

  /** Everything behind the scope that a probe could have changed. */
  async function bobState(): Promise<Json> {
    return {
      note: await getJson(t.app, `/all-notes/${bobNote.id}`),
      comments: await getJson(t.app, `/all-notes/${bobNote.id}/comments`),
      attachments: await getJson(t.app, `/all-notes/${bobNote.id}/attachments`),
    }
  }

  function send(probe: Probe, parentId: string) {
    const path = probe.path.replace('{comment}', bobComment.id).replace('{attachment}', bobAttachment.id)
    return t.app.inject({
      method: probe.method,
      url: `/notes/${parentId}${path}`,
      headers: asAlice,
      ...(probe.payload === undefined ? {} : { payload: probe.payload }),
    })
  }

  for (const [label, probe] of Object.entries(PROBES)) {
    it(`answers ${label} on another user's document exactly as on a missing one, and changes nothing`, async () => {
      const before = await bobState()
      const outside = await send(probe, bobNote.id)
      const missing = await send(probe, ABSENT_ID)
      expectErrorShape(outside)
      assert.deepEqual({ status: outside.statusCode, body: outside.json() }, { status: missing.statusCode, body: missing.json() })
      assert.deepEqual(await bobState(), before)
    })
  }

  describe('the list', () => {
    it("never shows another user's documents, whatever filters say", async () => {
      for (const filter of [{}, { owner: 'bob' }, { id: bobNote.id }, { $or: [{ owner: 'bob' }, { owner: 'alice' }] }]) {
        const docs = await getJson(t.app, `/notes${filtersQuery(filter)}`, asAlice)
        assert.deepEqual(
          docs.map((doc: Json) => doc.id),
          [aliceNote.id],
        )
      }
    })

    it('shows nothing to a request the scope cannot place (no user header), rather than everything', async () => {
      assert.deepEqual(await getJson(t.app, '/notes'), [])
      const res = await t.app.inject({ method: 'GET', url: `/notes/${bobNote.id}` })
      expectErrorShape(res)
      assert.equal(res.json().detail, 'Document not found')
    })
  })

  it("still serves the caller's own document and its children", async () => {
    assert.equal((await getJson(t.app, `/notes/${aliceNote.id}`, asAlice)).title, 'a1')
    const comment = await createDoc(t.app, `/notes/${aliceNote.id}/comments`, { body: 'mine' }, asAlice)
    assert.equal(comment.noteId, aliceNote.id)
    const attachment = await createDoc(t.app, `/notes/${aliceNote.id}/attachments`, { name: 'mine.pdf' }, asAlice)
    assert.equal((await getJson(t.app, `/notes/${aliceNote.id}/attachments/${attachment.id}`, asAlice)).name, 'mine.pdf')
  })
})
