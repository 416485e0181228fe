import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDLookup, CRUDRouter, type CRUDRouterOptions, createApp, crudService, MongoModel, type SetupError, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { type App, buildApp, type RouterOptions, type TestApp } from '../harness/app.ts'
import { ABSENT_ID } from '../harness/expect.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore, storeModes } from '../harness/stores.ts'
import { expectErrorShape, expectRefused } from './fixtures.ts'

/**
 * A lookup on a `localField` other than `_id` links children to whatever parent holds that value. The
 * link is only as safe as the value: two parents holding it (no unique index), a parent that changes it
 * (its children left for the next parent to take the value), or a parent without it (`null` matches every
 * orphan child of every tenant) would each let one caller reach another's children.
 */
const Project = MongoModel('LinkProject', { name: Type.String(), code: Type.String(), owner: Type.String() })
const LooseProject = MongoModel('LinkLooseProject', { name: Type.String(), code: Type.Optional(Type.String()), owner: Type.String() })
const Task = MongoModel('LinkTask', { title: Type.String(), projectCode: Type.String() })

const tasksLookup = new CRUDLookup({ model: Task, collectionName: 'tasks', prefix: 'tasks', localField: 'code', foreignField: 'projectCode' })
/** Every caller reaches only the projects they own. */
const byOwner = (request: FastifyRequest) => ({ owner: String(request.headers['x-user']) })
const projects: RouterOptions = {
  model: Project,
  collectionName: 'projects',
  prefix: '/projects',
  filterDependency: byOwner,
  lookups: [tasksLookup],
}
/** The safe configuration: `code` is required by the model and unique. */
const uniqueCode: RouterOptions = { ...projects, indexes: [{ key: { code: 1 }, unique: true }] }

const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

/** The registration error of `options`: a SetupError, or a failure of the test. */
async function refusal(options: RouterOptions): Promise<SetupError> {
  const mode = storeModes[0]!
  try {
    const t = await buildApp(mode, options)
    await t.close()
  } catch (error) {
    return error as SetupError
  }
  assert.fail(`the router registered: ${JSON.stringify({ ...options, model: undefined, lookups: undefined })}`)
}

describe('a lookup on a field other than _id registers only when the field is a safe link', () => {
  it('refuses a field without a unique index, saying what to change', async () => {
    const error = await refusal(projects)
    assert.equal(error.code, 'FMC_ERR_LOOKUP_INVALID', error.message)
    assert.match(error.message, /CRUDLookup 'tasks'/)
    assert.match(error.message, /'code'/)
    assert.match(error.message, /not unique/)
    assert.match(error.message, /identifierField/)
    assert.match(error.message, /unique: true/)
    assert.match(error.message, /'_id'/)
  })

  it('refuses a field that is unique only together with another (a compound index), or indexed without unique', async () => {
    for (const indexes of [[{ key: { code: 1, owner: 1 }, unique: true }], [{ key: { code: 1 } }]] as RouterOptions['indexes'][]) {
      const error = await refusal({ ...projects, ...(indexes === undefined ? {} : { indexes }) })
      assert.equal(error.code, 'FMC_ERR_LOOKUP_INVALID', error.message)
      assert.match(error.message, /not unique/)
    }
  })

  it('refuses a unique field the parent model does not require', async () => {
    const error = await refusal({ ...uniqueCode, model: LooseProject })
    assert.equal(error.code, 'FMC_ERR_LOOKUP_INVALID', error.message)
    assert.match(error.message, /required/)
    assert.match(error.message, /LinkLooseProject/)
  })

  it("accepts the router's identifierField, and a required field with a unique index of its own (either direction)", async () => {
    const mode = storeModes[0]!
    for (const options of [
      { ...projects, identifierField: 'code' },
      uniqueCode,
      { ...projects, indexes: [{ key: { code: -1 }, unique: true, name: 'code_desc' }] },
    ] as RouterOptions[]) {
      const t = await buildApp(mode, options)
      await t.close()
    }
  })
})

describeEachStore("a parent's code cannot be made to reach another parent's children", (mode) => {
  let t: TestApp
  let aliceTask: Json
  let bobProject: Json
  let aliceProject: Json
  before(async () => {
    t = await buildApp(mode, uniqueCode, { model: Task, collectionName: 'tasks', prefix: '/all-tasks' })
    aliceProject = await createDoc(t.app, '/projects', { name: 'alice', code: 'ALPHA', owner: 'alice' }, asAlice)
    bobProject = await createDoc(t.app, '/projects', { name: 'bob', code: 'BETA', owner: 'bob' }, asBob)
    aliceTask = await createDoc(t.app, `/projects/${aliceProject.id}/tasks`, { title: 'secret plan' }, asAlice)
  })
  after(() => t.close())

  const bobsTasks = () => getJson(t.app, `/projects/${bobProject.id}/tasks`, asBob)
  const storedTask = async () => getJson(t.app, `/all-tasks/${aliceTask.id}`)

  it("refuses Bob a project created with Alice's code (the unique index), and his tasks stay his", async () => {
    const res = await t.app.inject({ method: 'POST', url: '/projects', headers: asBob, payload: { name: 'copy', code: 'ALPHA', owner: 'bob' } })
    expectRefused(res)
    assert.deepEqual(await bobsTasks(), [])
  })

  it("refuses Bob a PATCH or PUT giving his project Alice's code, naming the field, and changes nothing", async () => {
    const url = `/projects/${bobProject.id}`
    expectRefused(await t.app.inject({ method: 'PATCH', url, headers: asBob, payload: { code: 'ALPHA' } }), 'code')
    expectRefused(await t.app.inject({ method: 'PUT', url, headers: asBob, payload: { name: 'bob', code: 'ALPHA', owner: 'bob' } }), 'code')
    assert.equal((await getJson(t.app, url, asBob)).code, 'BETA')
    assert.deepEqual(await bobsTasks(), [])
  })

  it("cannot read, change or delete Alice's task through Bob's project", async () => {
    const url = `/projects/${bobProject.id}/tasks/${aliceTask.id}`
    for (const [method, payload] of [['GET', undefined], ['PUT', { title: 'hijacked' }], ['PATCH', { title: 'hijacked' }], ['DELETE', undefined]] as const) {
      expectErrorShape(await t.app.inject({ method, url, headers: asBob, ...(payload === undefined ? {} : { payload }) }))
    }
    assert.deepEqual(await storedTask(), aliceTask)
  })

  it('refuses Alice renaming her project (its tasks would be left for the next project given ALPHA)', async () => {
    const url = `/projects/${aliceProject.id}`
    const patch = await t.app.inject({ method: 'PATCH', url, headers: asAlice, payload: { code: 'ALPHA2' } })
    expectRefused(patch, 'code')
    assert.deepEqual(patch.json().detail.map((issue: Json) => issue.loc), [['body', 'code']])
    expectRefused(await t.app.inject({ method: 'PUT', url, headers: asAlice, payload: { name: 'alice', code: 'ALPHA2', owner: 'alice' } }), 'code')
    expectRefused(await t.app.inject({ method: 'PATCH', url, headers: asAlice, payload: { code: null } }))
    assert.equal((await getJson(t.app, url, asAlice)).code, 'ALPHA')
    // So ALPHA is never free for Bob to take with Alice's task.
    expectRefused(await t.app.inject({ method: 'POST', url: '/projects', headers: asBob, payload: { name: 'later', code: 'ALPHA', owner: 'bob' } }))
    assert.deepEqual(await getJson(t.app, `/projects/${aliceProject.id}/tasks`, asAlice), [aliceTask])
  })

  it('lets a PUT or PATCH repeat the code, or leave it out of a PATCH', async () => {
    const url = `/projects/${aliceProject.id}`
    const put = await t.app.inject({ method: 'PUT', url, headers: asAlice, payload: { name: 'alice 2', code: 'ALPHA', owner: 'alice' } })
    assert.equal(put.statusCode, 200, put.body)
    const patch = await t.app.inject({ method: 'PATCH', url, headers: asAlice, payload: { name: 'alice 3', code: 'ALPHA' } })
    assert.equal(patch.statusCode, 200, patch.body)
    const other = await t.app.inject({ method: 'PATCH', url, headers: asAlice, payload: { name: 'alice 4' } })
    assert.equal(other.statusCode, 200, other.body)
    assert.deepEqual(await getJson(t.app, `/projects/${aliceProject.id}/tasks`, asAlice), [aliceTask])
  })
})

describeEachStore("identifierField as the link: a project's code in the path cannot change", (mode) => {
  let t: TestApp
  let task: Json
  before(async () => {
    t = await buildApp(mode, { ...projects, identifierField: 'code' })
    await createDoc(t.app, '/projects', { name: 'alice', code: 'ALPHA', owner: 'alice' }, asAlice)
    await createDoc(t.app, '/projects', { name: 'bob', code: 'BETA', owner: 'bob' }, asBob)
    task = await createDoc(t.app, '/projects/ALPHA/tasks', { title: 'secret plan' }, asAlice)
  })
  after(() => t.close())

  it("refuses Bob a project with Alice's code, and a rename of his own to it", async () => {
    expectRefused(await t.app.inject({ method: 'POST', url: '/projects', headers: asBob, payload: { name: 'copy', code: 'ALPHA', owner: 'bob' } }))
    expectRefused(await t.app.inject({ method: 'PATCH', url: '/projects/BETA', headers: asBob, payload: { code: 'ALPHA' } }), 'code')
    assert.deepEqual(await getJson(t.app, '/projects/BETA/tasks', asBob), [])
  })

  it('refuses a rename by PUT or PATCH, and keeps the tasks where they were', async () => {
    expectRefused(await t.app.inject({ method: 'PATCH', url: '/projects/ALPHA', headers: asAlice, payload: { code: 'GAMMA' } }), 'code')
    expectRefused(await t.app.inject({ method: 'PUT', url: '/projects/ALPHA', headers: asAlice, payload: { name: 'a', code: 'GAMMA', owner: 'alice' } }), 'code')
    const put = await t.app.inject({ method: 'PUT', url: '/projects/ALPHA', headers: asAlice, payload: { name: 'a', code: 'ALPHA', owner: 'alice' } })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(await getJson(t.app, '/projects/ALPHA/tasks', asAlice), [task])
  })
})

describeEachStore('a parent without a value reaches no children, as if it were missing', (mode) => {
  let t: TestApp
  const orphans = { missing: new ObjectId(), nulled: new ObjectId() }
  before(async () => {
    t = await buildApp(mode, uniqueCode, { model: Task, collectionName: 'tasks', prefix: '/all-tasks' })
    // Children of no parent (written by another tool, or by an older version): every tenant's, potentially.
    const tasks = t.store.db.collection('tasks')
    await tasks.insertOne({ _id: orphans.missing, title: 'orphan without code' })
    await tasks.insertOne({ _id: orphans.nulled, title: 'orphan with null code', projectCode: null })
  })
  after(() => t.close())

  /** Every route of the lookup, under `parent`, on orphan `child`. */
  const childRoutes = (parent: string, child: string) =>
    [
      ['GET', `/projects/${parent}/tasks`, undefined],
      ['POST', `/projects/${parent}/tasks`, { title: 'planted' }],
      ['GET', `/projects/${parent}/tasks/${child}`, undefined],
      ['PUT', `/projects/${parent}/tasks/${child}`, { title: 'taken' }],
      ['PATCH', `/projects/${parent}/tasks/${child}`, { title: 'taken' }],
      ['DELETE', `/projects/${parent}/tasks/${child}`, undefined],
    ] as const

  for (const [variant, stored] of [['without code', {}], ['with code null', { code: null }]] as const) {
    it(`answers every child route of a parent ${variant} as for a missing parent, and changes no orphan`, async () => {
      // Stored outside the API: the model requires `code`, so no API write makes such a parent.
      const parent = new ObjectId()
      await t.store.db.collection('projects').insertOne({ _id: parent, name: 'legacy', owner: 'alice', ...stored })
      try {
        const before = await getJson(t.app, '/all-tasks?sort_by=title')
        const send = ([method, url, payload]: ReturnType<typeof childRoutes>[number]) =>
          t.app.inject({ method, url, headers: asAlice, ...(payload === undefined ? {} : { payload }) })
        const absent = childRoutes(ABSENT_ID, orphans.nulled.toHexString())
        for (const [index, route] of childRoutes(parent.toHexString(), orphans.nulled.toHexString()).entries()) {
          const [res, missing] = [await send(route), await send(absent[index]!)]
          assert.deepEqual({ route: route[1], status: res.statusCode, body: res.json() }, { route: route[1], status: missing.statusCode, body: missing.json() })
          assert.deepEqual(res.json(), { detail: 'Document not found' })
        }
        assert.deepEqual(await getJson(t.app, '/all-tasks?sort_by=title'), before)
      } finally {
        await t.store.db.collection('projects').deleteOne({ _id: parent })
      }
    })
  }
})

describeEachStore('a child never stores null or another value in its foreign field', (mode) => {
  let t: TestApp
  let project: Json
  let task: Json
  before(async () => {
    t = await buildApp(mode, uniqueCode, { model: Task, collectionName: 'tasks', prefix: '/all-tasks' })
    project = await createDoc(t.app, '/projects', { name: 'alice', code: 'ALPHA', owner: 'alice' }, asAlice)
    task = await createDoc(t.app, `/projects/${project.id}/tasks`, { title: 'plan' }, asAlice)
  })
  after(() => t.close())

  it('refuses null in the foreign field on create, replace and update, and stores nothing', async () => {
    const list = `/projects/${project.id}/tasks`
    const url = `${list}/${task.id}`
    expectRefused(await t.app.inject({ method: 'POST', url: list, headers: asAlice, payload: { title: 'x', projectCode: null } }))
    expectRefused(await t.app.inject({ method: 'PUT', url, headers: asAlice, payload: { title: 'x', projectCode: null } }))
    expectRefused(await t.app.inject({ method: 'PATCH', url, headers: asAlice, payload: { projectCode: null } }))
    assert.deepEqual(await getJson(t.app, '/all-tasks'), [task])
  })
})

describeEachStore('crudService: the same rules as the routes', (mode) => {
  let store: OpenedStore
  let app: App
  let project: Json
  before(async () => {
    store = await mode.open()
    app = await createApp({ title: 'service', version: '1.0.0', fastify: { logger: false } })
    await app.register(CRUDRouter, { ...(uniqueCode as Omit<CRUDRouterOptions, 'db'>), db: store.db })
    const service = crudService(app, 'projects')
    app.put('/custom/:id', (request) => service.replace({ request, id: (request.params as { id: string }).id, body: request.body as Record<string, unknown> }))
    app.patch('/custom/:id', (request) => service.update({ request, id: (request.params as { id: string }).id, body: request.body as Record<string, unknown> }))
    await app.ready()
    project = await createDoc(app, '/projects', { name: 'alice', code: 'ALPHA', owner: 'alice' }, asAlice)
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  it('refuses a replace or update that changes the code, as the routes do', async () => {
    for (const [method, payload] of [['PATCH', { code: 'GAMMA' }], ['PUT', { name: 'a', code: 'GAMMA', owner: 'alice' }]] as const) {
      const route = await app.inject({ method, url: `/projects/${project.id}`, headers: asAlice, payload })
      const custom = await app.inject({ method, url: `/custom/${project.id}`, headers: asAlice, payload })
      expectRefused(custom, 'code')
      assert.deepEqual({ status: custom.statusCode, body: custom.json() }, { status: route.statusCode, body: route.json() })
    }
    assert.equal((await getJson(app, `/projects/${project.id}`, asAlice)).code, 'ALPHA')
  })
})
