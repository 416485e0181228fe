import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDPopulate, CRUDRouter, createApp, crudService, HTTPException, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, buildAppWith, filtersQuery, queryString, type RouterOptions, type TestApp } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { expectDetailMentioning } from '../harness/expect.ts'
import { logCapture } from '../harness/log-capture.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore, storeModes } from '../harness/stores.ts'

/**
 * Issue 34: a populated reference answers what the caller may follow and no more. Bob's board pins his
 * private note; to Alice, GET shows `"pinned": null, "noteIds": []`. Filters, sorts, `_groups` and
 * `_events` filters must not tell her more: naming a populated field whose target router's reads depend
 * on the caller (a row scope, GetOne dependencies) is 422, whoever the caller. A populate whose target
 * router shows every document to everyone keeps filtering by reference id.
 */
const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }
const nobody = {}

const Note = MongoModel('PrNote', { text: Type.String(), owner: Type.String() })
const NoteOut = MongoModelOut('PrNoteOut', { text: Type.String() })
const Board = MongoModel('PrBoard', { title: Type.String(), pinned: Type.Optional(ObjectIdField()), noteIds: Type.Optional(Type.Array(ObjectIdField())) })

const populates = [
  new CRUDPopulate({ field: 'pinned', collection: 'pr_notes', model: Note, modelOut: NoteOut }),
  new CRUDPopulate({ field: 'noteIds', collection: 'pr_notes', model: Note, modelOut: NoteOut }),
]
const boards: RouterOptions = { model: Board, collectionName: 'pr_boards', prefix: '/boards', populates }
const byOwner = async (request: FastifyRequest) => ({ owner: request.headers['x-user'] })
const scopedNotes: RouterOptions = { model: Note, modelOut: NoteOut, collectionName: 'pr_notes', prefix: '/notes', filterDependency: byOwner }

/** The 422 a request naming a guarded reference gets: its detail says why. */
function expectRefused(res: { statusCode: number, body: string }, url: string): void {
  assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
  assert.match(JSON.parse(res.body).detail, /references to documents the caller may not be allowed to see/, `${url}: ${res.body}`)
}

/** Every way a filter names a reference field: each operator, and inside logical and array operators. */
const filtersNaming = (id: string): object[] => [
  { pinned: id },
  { pinned: { $eq: id } },
  { pinned: { $in: [id] } },
  { pinned: { $ne: id } },
  { pinned: { $gt: '000000000000000000000000' } },
  { pinned: { $exists: true } },
  { pinned: null },
  { pinned: { $not: { $eq: id } } },
  { noteIds: id },
  { noteIds: { $size: 1 } },
  { noteIds: { $all: [id] } },
  { noteIds: { $elemMatch: { $eq: id } } },
  { noteIds: { $exists: true } },
  { $and: [{ title: 'bob board' }, { pinned: id }] },
  { $or: [{ title: 'nothing' }, { noteIds: { $size: 1 } }] },
  { $nor: [{ pinned: { $in: [id] } }] },
]

describeEachStore('a populated reference to scoped documents may not be filtered, sorted or grouped on', (mode) => {
  let t: TestApp
  let note: Json
  before(async () => {
    // The notes router registers after the boards router: which populates it guards is known when the app is ready.
    t = await buildApp(mode, boards, scopedNotes)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    note = await createDoc(t.app, '/notes', { text: 'bob private' }, asBob)
    const board = await createDoc(t.app, '/boards', { title: 'bob board', pinned: note.id, noteIds: [note.id] }, asBob)
    await createDoc(t.app, '/boards', { title: 'empty board' }, asBob)
    // What GET shows Alice: no reference.
    const seen = await getJson(t.app, `/boards/${board.id}`, asAlice)
    assert.equal(seen.pinned, null)
    assert.deepEqual(seen.noteIds, [])
  })
  after(() => t.close())

  it('_groups by or measuring a reference field is 422, for a caller who may not read the note and one who may read none', async () => {
    for (const headers of [asAlice, nobody]) {
      for (const query of [{ by: 'pinned' }, { by: 'title', metrics: 'min:pinned' }, { by: 'title', metrics: 'count,max:pinned' }]) {
        const url = `/boards/_groups${queryString(query)}`
        expectRefused(await t.app.inject({ url, headers }), url)
      }
    }
  })

  it('filters naming a reference field are 422 with any operator, on the list and on _groups', async () => {
    for (const headers of [asAlice, nobody]) {
      for (const filter of filtersNaming(note.id)) {
        for (const url of [`/boards${filtersQuery(filter)}`, `/boards${filtersQuery(filter, { limit: 10 })}`, `/boards/_groups${filtersQuery(filter, { by: 'title' })}`]) {
          expectRefused(await t.app.inject({ url, headers }), `${url} ${JSON.stringify(filter)}`)
        }
      }
    }
  })

  it('$size on a list of references does not count the hidden ones', async () => {
    const url = `/boards${filtersQuery({ noteIds: { $size: 1 } })}`
    const res = await t.app.inject({ url, headers: asAlice })
    expectRefused(res, url)
    assert.doesNotMatch(res.body, /bob board/)
  })

  it('sort_by a reference field is 422', async () => {
    for (const headers of [asAlice, nobody]) {
      for (const query of [{ sort_by: 'pinned' }, { sort_by: 'noteIds' }, { sort_by: 'pinned', order_by: 'DESC', limit: 5 }]) {
        const url = `/boards${queryString(query)}`
        expectRefused(await t.app.inject({ url, headers }), url)
      }
    }
  })

  it('an _events subscriber filtering on a reference field is refused with 422', async () => {
    for (const filter of [{ pinned: note.id }, { noteIds: { $size: 1 } }]) {
      const feed = await EventStreamClient.open(t.app, `/boards/_events${filtersQuery(filter)}`, asAlice)
      try {
        assert.equal(feed.status, 422, `${JSON.stringify(filter)}: ${feed.text}`)
        await feed.ended
        assert.match(JSON.parse(feed.text).detail, /references to documents the caller may not be allowed to see/)
      } finally {
        feed.close()
      }
    }
  })

  it('the rule is the field\'s, not the caller\'s: Bob, who may read the note, is refused too', async () => {
    const url = `/boards${filtersQuery({ pinned: note.id })}`
    expectRefused(await t.app.inject({ url, headers: asBob }), url)
  })

  it('other fields still filter, sort and group; fields= shows the references as GET does', async () => {
    const listed = await getJson(t.app, `/boards${queryString({ filters: JSON.stringify({ title: 'bob board' }), sort_by: 'title', fields: 'pinned,noteIds' })}`, asAlice)
    assert.equal(listed.length, 1)
    assert.equal(listed[0].pinned, null)
    assert.deepEqual(listed[0].noteIds, [])
    const groups = await getJson(t.app, '/boards/_groups?by=title', asAlice)
    assert.equal(groups.length, 2)
  })
})

describe('a populated reference to documents behind GetOne dependencies may not be filtered on [embedded-memory]', () => {
  let t: TestApp
  let note: Json
  const adminOnly = (request: FastifyRequest) => {
    if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  }
  before(async () => {
    t = await buildApp(storeModes[0]!, { model: Note, modelOut: NoteOut, collectionName: 'pr_notes', prefix: '/notes', dependenciesGetOne: [adminOnly] }, boards)
    note = await createDoc(t.app, '/notes', { text: 'admin only', owner: 'bob' })
    await createDoc(t.app, '/boards', { title: 'b', pinned: note.id })
  })
  after(() => t.close())

  it('filters, sort_by and _groups naming it are 422', async () => {
    for (const url of [`/boards${filtersQuery({ pinned: note.id })}`, '/boards?sort_by=pinned', '/boards/_groups?by=pinned']) {
      expectRefused(await t.app.inject({ url }), url)
    }
  })
})

describe('a reference field listed in filterable and sortable, and the defaultSort, to scoped documents [embedded-memory]', () => {
  let t: TestApp
  let note: Json
  const log = logCapture()
  before(async () => {
    t = await buildAppWith(
      storeModes[0]!,
      { fastify: { logger: { level: 'warn', stream: log.stream } } },
      { ...boards, filterable: ['title', 'pinned'], sortable: ['title', 'pinned'], defaultSort: { field: 'pinned' } },
      scopedNotes
    )
    note = await createDoc(t.app, '/notes', { text: 'bob private' }, asBob)
    await createDoc(t.app, '/boards', { title: 'b', pinned: note.id }, asBob)
  })
  after(() => t.close())

  it('is refused at request time, as when it is not listed', async () => {
    for (const url of [`/boards${filtersQuery({ pinned: note.id })}`, '/boards?sort_by=pinned', '/boards/_groups?by=pinned']) {
      expectDetailMentioning(await t.app.inject({ url, headers: asAlice }), 422, 'pinned')
      expectRefused(await t.app.inject({ url, headers: asAlice }), url)
    }
  })

  it('and startup warns that listing it opens nothing, and that the defaultSort tells what GET hides', async () => {
    const warnings = log.warnings().map((line) => String(line.msg))
    assert.ok(warnings.some((msg) => msg.includes("'pinned'") && msg.includes('filterable') && msg.includes('sortable')), JSON.stringify(warnings))
    assert.ok(warnings.some((msg) => msg.startsWith("defaultSort sorts by 'pinned'")), JSON.stringify(warnings))
    // The router's own defaultSort is server code: a list without sort_by still answers.
    assert.equal((await getJson(t.app, '/boards', asAlice)).length, 1)
  })
})

describeEachStore('a populated reference to documents everyone may read still filters, sorts and groups', (mode) => {
  let t: TestApp
  let note: Json
  let board: Json
  before(async () => {
    t = await buildApp(mode, boards, { model: Note, modelOut: NoteOut, collectionName: 'pr_notes', prefix: '/notes' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    note = await createDoc(t.app, '/notes', { text: 'public', owner: 'bob' })
    board = await createDoc(t.app, '/boards', { title: 'bob board', pinned: note.id, noteIds: [note.id] })
    await createDoc(t.app, '/boards', { title: 'empty board' })
  })
  after(() => t.close())

  it('filters by reference id, with any operator', async () => {
    assert.deepEqual((await getJson(t.app, `/boards${filtersQuery({ pinned: note.id })}`, asAlice)).map((doc: Json) => doc.id), [board.id])
    assert.deepEqual((await getJson(t.app, `/boards${filtersQuery({ noteIds: { $size: 1 } })}`, asAlice)).map((doc: Json) => doc.id), [board.id])
    const both = { $or: [{ noteIds: { $elemMatch: { $eq: note.id } } }, { pinned: { $in: [note.id] } }] }
    assert.deepEqual((await getJson(t.app, `/boards${filtersQuery(both)}`)).map((doc: Json) => doc.title), ['bob board'])
  })

  it('sorts and groups by it', async () => {
    assert.equal((await getJson(t.app, '/boards?sort_by=pinned&order_by=DESC')).at(0).title, 'bob board')
    const groups = await getJson(t.app, '/boards/_groups?by=pinned&sort_by=count')
    assert.deepEqual(groups.map((group: Json) => group.pinned).sort(), [note.id, null].sort())
  })

  it('an _events subscriber filters on it', async () => {
    const feed = await EventStreamClient.open(t.app, `/boards/_events${filtersQuery({ pinned: note.id })}`)
    try {
      assert.equal(feed.status, 200)
      await createDoc(t.app, '/boards', { title: 'unpinned' })
      await createDoc(t.app, '/boards', { title: 'pinned too', pinned: note.id })
      const [event] = await feed.take(1)
      assert.equal(event!.data.document.title, 'pinned too')
    } finally {
      feed.close()
    }
  })
})

describe('the service API refuses them with the codes of the filter and query grammars [embedded-memory]', () => {
  let store: OpenedStore
  let app: Awaited<ReturnType<typeof createApp>>
  before(async () => {
    store = await storeModes[0]!.open()
    app = await createApp({ title: 'service', version: '1.0.0', fastify: { logger: false } })
    await app.register(CRUDRouter, { ...boards, db: store.db })
    await app.register(CRUDRouter, { ...scopedNotes, db: store.db })
    // Routers are named after their collection.
    const service = crudService(app, 'prBoards')
    // The code a list of the service API is refused with, or `none`.
    app.get('/code', async (request) => {
      const query = JSON.parse(String((request.query as { q: string }).q))
      try {
        await service.list({ request, query })
      } catch (error) {
        return { code: (error as HTTPException).code }
      }
      return { code: 'none' }
    })
    await app.ready()
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  it('filters: FMC_ERR_FILTER_INVALID; sort_by: FMC_ERR_QUERY_INVALID', async () => {
    const codeOf = async (query: object) => (await app.inject(`/code${queryString({ q: JSON.stringify(query) })}`)).json().code
    assert.equal(await codeOf({ filters: { pinned: 'ffffffffffffffffffffffff' } }), 'FMC_ERR_FILTER_INVALID')
    assert.equal(await codeOf({ sort_by: 'noteIds' }), 'FMC_ERR_QUERY_INVALID')
    assert.equal(await codeOf({ filters: { title: 'b' }, sort_by: 'title' }), 'none')
  })
})
