import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { type DriverDb, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, buildAppWith, filtersQuery, type RouterOptions, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { logCapture } from '../harness/log-capture.ts'
import { Note } from '../harness/models.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * `filterDependency` guards what writes produce, not only what they reach: a create, replace or
 * update whose result would fall outside the caller's scope is 403 and changes nothing. The check is
 * part of the write's own filter, so it holds atomically.
 */
const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

const ownerScope = async (request: FastifyRequest) => ({ owner: request.headers['x-user'] })
const notes = (extra: Partial<RouterOptions> = {}): RouterOptions => ({
  model: Note,
  collectionName: 'notes',
  prefix: '/notes',
  filterDependency: ownerScope,
  ...extra,
})
/** The same collection, unscoped: what is really stored. */
const rawNotes: RouterOptions = { model: Note, collectionName: 'notes', prefix: '/raw-notes' }

describeEachStore('writes stay inside an equality scope', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, notes(), rawNotes)
  })
  after(() => t.close())

  it('answers 403 to a PATCH that would move the document to another owner, and changes nothing', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'mine', owner: 'alice' }, asAlice)
    const res = await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { owner: 'bob' }, headers: asAlice })
    expectDetail(res, 403, 'Write refused: the values sent would put the document outside the documents the caller may access')
    assert.deepEqual(await getJson(t.app, `/raw-notes/${note.id}`), note)
    assert.deepEqual(await getJson(t.app, `/notes${filtersQuery({})}`, asBob), [])
  })

  it('answers 403 to a PUT that would move the document to another owner, and changes nothing', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'mine-2', owner: 'alice' }, asAlice)
    const res = await t.app.inject({ method: 'PUT', url: `/notes/${note.id}`, payload: { title: 'x', owner: 'bob' }, headers: asAlice })
    assert.equal(res.statusCode, 403, res.body)
    assert.deepEqual(await getJson(t.app, `/raw-notes/${note.id}`), note)
  })

  it('answers 403 to a create for another owner, and stores nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 'planted', owner: 'bob' }, headers: asAlice })
    assert.equal(res.statusCode, 403, res.body)
    assert.deepEqual(await getJson(t.app, `/raw-notes${filtersQuery({ title: 'planted' })}`), [])
  })

  it("fills the scope's value into a create that leaves the field out, even a required one", async () => {
    const res = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 'filled' }, headers: asAlice })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().owner, 'alice')
    assert.equal((await getJson(t.app, `/raw-notes/${res.json().id}`)).owner, 'alice')
  })

  it('still lets writes that stay inside the scope through', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'kept', owner: 'alice' }, asAlice)
    const patched = await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { title: 'kept-2', owner: 'alice' }, headers: asAlice })
    assert.equal(patched.statusCode, 200, patched.body)
    const replaced = await t.app.inject({ method: 'PUT', url: `/notes/${note.id}`, payload: { title: 'kept-3', owner: 'alice' }, headers: asAlice })
    assert.equal(replaced.statusCode, 200, replaced.body)
    assert.equal(replaced.json().title, 'kept-3')
  })

  it("answers a write on another owner's document as on a missing one, not 403", async () => {
    const bobs = await createDoc(t.app, '/notes', { title: 'bobs', owner: 'bob' }, asBob)
    const res = await t.app.inject({ method: 'PATCH', url: `/notes/${bobs.id}`, payload: { owner: 'alice' }, headers: asAlice })
    expectDetail(res, 422, 'Document not updated')
    assert.equal((await getJson(t.app, `/raw-notes/${bobs.id}`)).owner, 'bob')
  })
})

/** A non-equality scope: a team lead sees the notes of several owners. */
const teamScope = async (request: FastifyRequest) => ({ owner: { $in: String(request.headers['x-team'] ?? '').split(',') } })
const asTeam = { 'x-team': 'alice,bob' }

describeEachStore('writes stay inside an $in scope', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, notes({ filterDependency: teamScope }), rawNotes)
  })
  after(() => t.close())

  it('lets a PATCH move a document between owners of the scope', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'shared', owner: 'alice' }, asTeam)
    const res = await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { owner: 'bob' }, headers: asTeam })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().owner, 'bob')
  })

  it('answers 403 to a PATCH, a PUT or a create that would leave the scope, and changes nothing', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'team', owner: 'alice' }, asTeam)
    const patched = await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { owner: 'mallory' }, headers: asTeam })
    assert.equal(patched.statusCode, 403, patched.body)
    const replaced = await t.app.inject({ method: 'PUT', url: `/notes/${note.id}`, payload: { title: 't', owner: 'mallory' }, headers: asTeam })
    assert.equal(replaced.statusCode, 403, replaced.body)
    const created = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 'out', owner: 'mallory' }, headers: asTeam })
    assert.equal(created.statusCode, 403, created.body)
    assert.deepEqual(await getJson(t.app, `/raw-notes/${note.id}`), note)
    assert.deepEqual(await getJson(t.app, `/raw-notes${filtersQuery({ owner: 'mallory' })}`), [])
  })
})

/** A scope over a field the PATCH does not send is checked by the database, in the write itself. */
const Task = MongoModel('Task', { title: Type.String(), owner: Type.String(), archived: Type.Optional(Type.Boolean()) })
const liveScope = async (request: FastifyRequest) => ({ $or: [{ owner: request.headers['x-user'] }, { archived: false }] })

describeEachStore('writes stay inside a scope over several fields', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Task, collectionName: 'tasks', prefix: '/tasks', filterDependency: liveScope }, { model: Task, collectionName: 'tasks', prefix: '/raw-tasks' })
  })
  after(() => t.close())

  it('answers 403 when the written field and a stored one together leave the scope', async () => {
    const task = await createDoc(t.app, '/raw-tasks', { title: 'x', owner: 'bob', archived: false })
    // In scope through `archived: false`; archiving it would take it out of alice's reach.
    const res = await t.app.inject({ method: 'PATCH', url: `/tasks/${task.id}`, payload: { archived: true }, headers: asAlice })
    assert.equal(res.statusCode, 403, res.body)
    assert.deepEqual(await getJson(t.app, `/raw-tasks/${task.id}`), task)
    const own = await createDoc(t.app, '/raw-tasks', { title: 'y', owner: 'alice', archived: false })
    const ok = await t.app.inject({ method: 'PATCH', url: `/tasks/${own.id}`, payload: { archived: true }, headers: asAlice })
    assert.equal(ok.statusCode, 200, ok.body)
  })
})

/** A db where another client changes `owner` to bob right before each findOneAndUpdate of `tasks`. */
function raceOwnerChange(db: DriverDb): DriverDb {
  return {
    collection(name: string) {
      const collection = db.collection(name)
      if (name !== 'tasks') return collection
      return new Proxy(collection, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver)
          if (typeof value !== 'function') return value
          if (property !== 'findOneAndUpdate') return value.bind(target)
          return async (filter: Record<string, unknown>, ...rest: unknown[]) => {
            await target.updateOne({}, { $set: { owner: 'bob' } })
            return value.call(target, filter, ...rest)
          }
        },
      })
    },
  }
}

describeEachStore('the scope check of a write cannot be raced', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildAppWith(
      mode,
      { wrapDb: raceOwnerChange },
      { model: Task, collectionName: 'tasks', prefix: '/tasks', filterDependency: liveScope },
      { model: Task, collectionName: 'tasks', prefix: '/raw-tasks' }
    )
  })
  after(() => t.close())

  it('refuses (403) a PATCH whose result leaves the scope because of a concurrent write, and changes nothing', async () => {
    const task = await createDoc(t.app, '/raw-tasks', { title: 'raced', owner: 'alice', archived: false })
    // Alice may archive her own task; but another client gives it to bob just before the write lands.
    const res = await t.app.inject({ method: 'PATCH', url: `/tasks/${task.id}`, payload: { archived: true }, headers: asAlice })
    assert.equal(res.statusCode, 403, res.body)
    assert.deepEqual(await getJson(t.app, `/raw-tasks/${task.id}`), { ...task, owner: 'bob' })
  })
})

/** Scope values the router cannot use: a missing header, an id that is not one. */
const Doc = MongoModel('Doc', { title: Type.String(), ownerId: ObjectIdField() })

describeEachStore('a scope value the router cannot use matches nothing', (mode) => {
  let t: TestApp
  const logs = logCapture()
  before(async () => {
    t = await buildAppWith(
      mode,
      { fastify: { logger: { level: 'error', stream: logs.stream } } },
      notes(),
      rawNotes,
      { model: Doc, collectionName: 'docs', prefix: '/docs-scoped', filterDependency: async (request: FastifyRequest) => ({ ownerId: request.headers['x-user'] }) },
      { model: Doc, collectionName: 'docs', prefix: '/docs-raw' }
    )
  })
  after(() => t.close())

  it('answers an empty list and "not found" when the scope yields undefined, and logs it once', async () => {
    // Documents without an owner: a scope that read undefined as null would match them.
    await t.store.db.collection('notes').insertOne({ title: 'no owner' })
    await t.store.db.collection('notes').insertOne({ title: 'null owner', owner: null })
    const list = await t.app.inject({ method: 'GET', url: '/notes' })
    assert.equal(list.statusCode, 200, list.body)
    assert.deepEqual(list.json(), [])
    const again = await t.app.inject({ method: 'GET', url: '/notes?limit=5' })
    assert.deepEqual(again.json(), [])
    const problems = logs.lines.filter((line) => String(line.msg).includes('filterDependency returned undefined for "owner"'))
    assert.equal(problems.length, 1, JSON.stringify(logs.lines))
    assert.equal(problems[0].level, 50)
  })

  it('matches nothing when a scope value does not fit its field (not an ObjectId), instead of a 500', async () => {
    const doc = await createDoc(t.app, '/docs-raw', { title: 'd', ownerId: '5f0c0c0c0c0c0c0c0c0c0c0c' })
    const list = await t.app.inject({ method: 'GET', url: '/docs-scoped', headers: { 'x-user': 'not-an-id' } })
    assert.equal(list.statusCode, 200, list.body)
    assert.deepEqual(list.json(), [])
    expectDetail(await t.app.inject({ method: 'GET', url: `/docs-scoped/${doc.id}`, headers: { 'x-user': 'not-an-id' } }), 400, 'Document not found')
    const mine = await getJson(t.app, `/docs-scoped/${doc.id}`, { 'x-user': '5f0c0c0c0c0c0c0c0c0c0c0c' })
    assert.equal(mine.title, 'd')
    assert.ok(logs.lines.some((line) => String(line.msg).includes('expects an ObjectId')), JSON.stringify(logs.lines))
  })
})

describeEachStore('a scope outside the grammar matches nothing', (mode) => {
  let t: TestApp
  const logs = logCapture()
  before(async () => {
    t = await buildAppWith(mode, { fastify: { logger: { level: 'error', stream: logs.stream } } }, rawNotes, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      filterDependency: async () => ({ $where: 'true' }),
    })
  })
  after(() => t.close())

  it('answers an empty list, refuses writes as for a missing document, and logs the problem', async () => {
    const note = await createDoc(t.app, '/raw-notes', { title: 'n', owner: 'alice' })
    assert.deepEqual(await getJson(t.app, '/notes'), [])
    expectDetail(await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { title: 'x' } }), 422, 'Document not updated')
    expectDetail(await t.app.inject({ method: 'DELETE', url: `/notes/${note.id}` }), 422, 'Document not deleted')
    assert.deepEqual(await getJson(t.app, `/raw-notes/${note.id}`), note)
    assert.ok(logs.lines.some((line) => String(line.msg).includes('operator $where is not allowed')), JSON.stringify(logs.lines))
  })
})

describeEachStore('filtersUnderScope: "and" lets scoped lists search', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, notes({ filtersUnderScope: 'and' }), { ...notes(), prefix: '/notes-default' })
    await createDoc(t.app, '/notes', { title: 'apple', owner: 'alice' }, asAlice)
    await createDoc(t.app, '/notes', { title: 'banana', owner: 'alice' }, asAlice)
    await createDoc(t.app, '/notes', { title: 'apple', owner: 'bob' }, asBob)
  })
  after(() => t.close())

  it("ANDs the client's filters with the scope", async () => {
    const found: Json[] = await getJson(t.app, `/notes${filtersQuery({ title: 'apple' })}`, asAlice)
    assert.deepEqual(found.map((n) => [n.title, n.owner]), [['apple', 'alice']])
  })

  it('never widens the scope, whatever the filters say', async () => {
    const found: Json[] = await getJson(t.app, `/notes${filtersQuery({ $or: [{ owner: 'bob' }, { owner: 'alice' }] })}`, asAlice)
    assert.deepEqual(found.map((n) => n.owner), ['alice', 'alice'])
  })

  it('still checks the filters against the grammar (422)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/notes${filtersQuery({ $where: '1' })}`, headers: asAlice })
    assert.equal(res.statusCode, 422, res.body)
  })

  it('by default, ignores client filters under a scope (docs/security.md, Row scope)', async () => {
    const found: Json[] = await getJson(t.app, `/notes-default${filtersQuery({ title: 'apple' })}`, asAlice)
    assert.equal(found.length, 2)
  })
})
