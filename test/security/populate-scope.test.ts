import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDPopulate, HTTPException, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { ObjectId } from 'mongodb'
import { type App, buildApp, type TestApp } from '../harness/app.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore, storeModes } from '../harness/stores.ts'

/**
 * A populate reads the referenced documents as the router serving them would answer them to the same
 * caller: its row scope and its GetOne dependencies apply, and an id outside them behaves as a missing
 * one. Otherwise a reference is a way around the scope: a client stores the id of a document it may not
 * read, and GET answers it in full.
 */
const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

const API = {
  models: {
    Note: { type: 'object', properties: { text: { type: 'string' }, owner: { type: 'string' } }, required: ['text', 'owner'] },
    Board: {
      type: 'object',
      properties: { title: { type: 'string' }, pinned: { type: 'string', format: 'objectid' }, more: { type: 'array', items: { type: 'string', format: 'objectid' } } },
      required: ['title'],
    },
  },
  routers: {
    notes: { prefix: '/notes', collection: 'notes', model: 'Note', scope: { field: 'owner', header: 'x-user' } },
    boards: { prefix: '/boards', collection: 'boards', model: 'Board', populates: [{ field: 'pinned', router: 'notes' }, { field: 'more', router: 'notes' }] },
  },
}

describeEachStore('a populate reads through the target router scope (API file)', (mode) => {
  let store: OpenedStore
  let app: App
  let alices: Json
  let bobs: Json
  before(async () => {
    store = await mode.open()
    app = (await buildApiApp(parseApiFile(JSON.stringify(API)), store.db, { fastify: { logger: false } })) as unknown as App
    alices = await createDoc(app, '/notes', { text: 'alice secret' }, asAlice)
    bobs = await createDoc(app, '/notes', { text: 'bob note' }, asBob)
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  it("Bob's board pinning Alice's note shows null, on create and on every GET", async () => {
    const res = await app.inject({ method: 'POST', url: '/boards', payload: { title: 'b', pinned: alices.id }, headers: asBob })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().pinned, null)
    assert.ok(!res.body.includes('alice secret'), res.body)
    for (const url of [`/boards/${res.json().id}`, '/boards?limit=10', '/boards']) {
      const read = await app.inject({ url, headers: asBob })
      assert.equal(read.statusCode, 200, read.body)
      assert.ok(!read.body.includes('alice secret'), `${url}: ${read.body}`)
    }
    // The reference is kept: Alice, who may read the note, sees it populated.
    assert.equal((await getJson(app, `/boards/${res.json().id}`, asAlice)).pinned.text, 'alice secret')
  })

  it('a list of references keeps only the documents the caller may read', async () => {
    const board = await createDoc(app, '/boards', { title: 'many', more: [alices.id, bobs.id] }, asBob)
    assert.deepEqual(board.more.map((note: Json) => note.text), ['bob note'])
    assert.deepEqual((await getJson(app, `/boards/${board.id}`, asAlice)).more.map((note: Json) => note.text), ['alice secret'])
    assert.deepEqual((await getJson(app, `/boards/${board.id}`)).more, [])
  })

  it('a sweep of many ids finds nothing outside the scope, and reads a bounded number of ids', async () => {
    const sweep = Array.from({ length: 1500 }, () => new ObjectId().toHexString())
    sweep.splice(1200, 0, alices.id)
    const res = await app.inject({ method: 'POST', url: '/boards', payload: { title: 'sweep', more: [bobs.id, ...sweep] }, headers: asBob })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().more.map((note: Json) => note.text), ['bob note'])
    // Alice's note lies past the first 1000 references: not read, even for her.
    const forAlice = await getJson(app, `/boards/${res.json().id}`, asAlice)
    assert.deepEqual(forAlice.more, [])
  })
})

const Note = MongoModel('PsNote', { text: Type.String(), owner: Type.String() })
const NoteOut = MongoModelOut('PsNoteOut', { text: Type.String() })
const Board = MongoModel('PsBoard', { title: Type.String(), pinned: Type.Optional(ObjectIdField()) })

describe('a populate reads through the target router dependencies and every router of its collection [embedded-memory]', () => {
  let t: TestApp
  let note: Json
  const adminOnly = (request: FastifyRequest) => {
    if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  }
  before(async () => {
    t = await buildApp(
      storeModes[0]!,
      { model: Board, collectionName: 'ps_boards', prefix: '/boards', populates: [new CRUDPopulate({ field: 'pinned', collection: 'ps_notes', model: Note, modelOut: NoteOut })] },
      { model: Note, modelOut: NoteOut, collectionName: 'ps_notes', prefix: '/admin/notes', dependenciesGetOne: [adminOnly] },
      { model: Note, modelOut: NoteOut, collectionName: 'ps_notes', prefix: '/notes', filterDependency: async (request: FastifyRequest) => ({ owner: request.headers['x-user'] }) }
    )
    note = await createDoc(t.app, '/notes', { text: 'alice only' }, asAlice)
  })
  after(() => t.close())

  it('a GetOne dependency of a router serving the collection refuses: the reference is missing', async () => {
    const board = await createDoc(t.app, '/boards', { title: 'b', pinned: note.id }, asAlice)
    assert.equal(board.pinned, null)
    assert.equal((await getJson(t.app, `/boards/${board.id}`, { ...asAlice, 'x-role': 'admin' })).pinned.text, 'alice only')
    // Admin, but outside the scope of /notes: missing too.
    assert.equal((await getJson(t.app, `/boards/${board.id}`, { ...asBob, 'x-role': 'admin' })).pinned, null)
  })
})
