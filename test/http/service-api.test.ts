// The service API (issue 12, item 6): a handler of the app's own runs the router's operations without
// HTTP and answers exactly like the generated routes: scope, output model, validation, coded errors.
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { CRUDRouter, createApp, crudService, HTTPException, type ServiceListQuery } from 'fastify-mongo-crud'
import type { App } from '../harness/app.ts'
import { ABSENT_ID } from '../harness/expect.ts'
import { Note, User, UserOut } from '../harness/models.ts'
import { type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore, type OpenedStore } from '../harness/stores.ts'

const asAlice = { 'x-user': 'alice' }

describeEachStore('crudService: custom routes behave like the generated ones', (mode) => {
  let store: OpenedStore
  let app: App
  let alice: Json
  let aliceNote: Json
  let bobNote: Json
  before(async () => {
    store = await mode.open()
    app = await createApp({ title: 'service', version: '1.0.0', fastify: { logger: false } })
    await app.register(CRUDRouter, { model: User, modelOut: UserOut, db: store.db, collectionName: 'users', prefix: '/users' })
    await app.register(CRUDRouter, { model: Note, db: store.db, collectionName: 'notes', prefix: '/all-notes', name: 'allNotes' })
    await app.register(CRUDRouter, {
      model: Note,
      db: store.db,
      collectionName: 'notes',
      prefix: '/notes',
      filterDependency: (request) => ({ owner: String(request.headers['x-user']) }),
      filtersUnderScope: 'and',
    })
    // Routes disabled and guarded over HTTP: the service still runs the operations, without the dependencies.
    await app.register(CRUDRouter, {
      model: Note,
      db: store.db,
      collectionName: 'notes',
      prefix: '/closed-notes',
      name: 'closedNotes',
      disableCreateOne: true,
      disableDeleteOne: true,
      dependenciesGetAll: [
        async () => {
          throw new HTTPException(403, 'Closed')
        },
      ],
    })
    // The custom routes: each one forwards its request to a service operation and answers what it returns.
    for (const [name, service] of [['users', crudService(app, 'users', { model: User, modelOut: UserOut })], ['notes', crudService(app, 'notes', { model: Note })]] as const) {
      const id = (request: FastifyRequest) => (request.params as { id: string }).id
      const body = <T>(request: FastifyRequest) => request.body as T
      app.get(`/custom/${name}`, (request) => service.list({ request, query: request.query as ServiceListQuery }))
      app.post(`/custom/${name}`, async (request, reply: FastifyReply) => reply.code(201).send(await service.create({ request, body: body(request) })))
      app.get(`/custom/${name}/:id`, (request) => service.get({ request, id: id(request) }))
      app.put(`/custom/${name}/:id`, (request) => service.replace({ request, id: id(request), body: body(request) }))
      app.patch(`/custom/${name}/:id`, (request) => service.update({ request, id: id(request), body: body(request) }))
      app.delete(`/custom/${name}/:id`, async (request, reply: FastifyReply) => {
        await service.delete({ request, id: id(request) })
        return reply.code(204).send()
      })
    }
    await app.ready()
    ;[alice] = await seedDocs(app, '/users', [
      { name: 'alice', email: 'a@example.com', password: 'secret-a', age: 30 },
      { name: 'bob', email: 'b@example.com', password: 'secret-b', age: 20 },
    ])
    const notes = await seedDocs(app, '/all-notes', [
      { title: 'a1', owner: 'alice' },
      { title: 'a2', owner: 'alice' },
      { title: 'b1', owner: 'bob' },
    ])
    aliceNote = notes[0]
    bobNote = notes[2]
  })
  after(async () => {
    await app.close()
    await store.close()
  })

  /** Sends the same request to the generated route and to the custom one; they must answer alike. */
  async function same(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, options: { payload?: Record<string, unknown>, headers?: Record<string, string> } = {}) {
    const generated = await app.inject({ method, url: path, ...options })
    const custom = await app.inject({ method, url: `/custom${path}`, ...options })
    assert.equal(custom.statusCode, generated.statusCode, `${method} ${path}: ${custom.body} vs ${generated.body}`)
    assert.deepEqual(custom.body === '' ? '' : custom.json(), generated.body === '' ? '' : generated.json(), `${method} ${path}`)
    return generated
  }

  it('lists with the filter grammar, sort and paging, hidden fields removed', async () => {
    const res = await same('GET', `/users?filters=${encodeURIComponent('{"name":{"$in":["alice","bob"]}}')}&sort_by=name&order_by=DESC&limit=5`)
    assert.deepEqual(res.json().map((doc: Json) => doc.name), ['bob', 'alice'])
    assert.ok(res.json().every((doc: Json) => !('password' in doc)))
  })

  it('answers a bad filter, a field that is not filterable and a bad parameter with the same 422', async () => {
    for (const query of ['filters=%7Bnot-json', `filters=${encodeURIComponent('{"password":"x"}')}`, `filters=${encodeURIComponent('{"age":{"$gte":18}}')}`, `filters=${encodeURIComponent('{"$where":"1"}')}`, 'limit=0', 'order_by=UP', 'sort_by=nope']) {
      const res = await same('GET', `/users?${query}`)
      assert.equal(res.statusCode, 422, query)
    }
  })

  it('gets one document through the output model, and the same not-found answer', async () => {
    const res = await same('GET', `/users/${alice.id}`)
    assert.deepEqual(Object.keys(res.json()).sort(), ['email', 'id', 'name'])
    assert.equal((await same('GET', `/users/${ABSENT_ID}`)).statusCode, 400)
    assert.equal((await same('GET', '/users/not-an-id')).statusCode, 400)
  })

  it('validates create bodies with the same 422 (fields named), and creates through the output model', async () => {
    assert.equal((await same('POST', '/users', { payload: { name: 'x' } })).statusCode, 422)
    assert.equal((await same('POST', '/users', { payload: { name: 'x', email: 'x@example.com', password: 'p', extra: 1 } })).statusCode, 422)
    const res = await app.inject({ method: 'POST', url: '/custom/users', payload: { name: 'carol', email: 'c@example.com', password: 'secret-c' } })
    assert.equal(res.statusCode, 201)
    assert.deepEqual(Object.keys(res.json()).sort(), ['email', 'id', 'name'])
    assert.deepEqual((await app.inject({ method: 'GET', url: `/users/${res.json().id}` })).json(), res.json())
  })

  it('replaces and updates like PUT and PATCH, errors included', async () => {
    const created = (await app.inject({ method: 'POST', url: '/users', payload: { name: 'dan', email: 'd@example.com', password: 'p' } })).json()
    const put = await app.inject({ method: 'PUT', url: `/custom/users/${created.id}`, payload: { name: 'dan2', email: 'd@example.com', password: 'p' } })
    assert.deepEqual(put.json(), { id: created.id, name: 'dan2', email: 'd@example.com' })
    const patch = await app.inject({ method: 'PATCH', url: `/custom/users/${created.id}`, payload: { name: 'dan3' } })
    assert.deepEqual(patch.json(), { id: created.id, name: 'dan3', email: 'd@example.com' })
    assert.equal((await same('PATCH', `/users/${created.id}`, { payload: { age: 'old' } })).statusCode, 422)
    assert.equal((await same('PATCH', `/users/${created.id}`, { payload: { id: ABSENT_ID } })).statusCode, 422)
    assert.equal((await same('PUT', `/users/${ABSENT_ID}`, { payload: { name: 'z', email: 'z@example.com', password: 'p' } })).statusCode, 422)
    assert.equal((await same('PATCH', `/users/${ABSENT_ID}`, { payload: { name: 'z' } })).statusCode, 422)
  })

  it('deletes like DELETE, and the same 422 for a missing document', async () => {
    const created = (await app.inject({ method: 'POST', url: '/users', payload: { name: 'eve', email: 'e@example.com', password: 'p' } })).json()
    assert.equal((await app.inject({ method: 'DELETE', url: `/custom/users/${created.id}` })).statusCode, 204)
    assert.equal((await same('DELETE', `/users/${created.id}`)).statusCode, 422)
  })

  it("applies the router's scope to the request given: lists and reads only the caller's documents", async () => {
    const res = await same('GET', '/notes', { headers: asAlice })
    assert.deepEqual(res.json().map((doc: Json) => doc.title).sort(), ['a1', 'a2'])
    assert.equal((await same('GET', `/notes/${aliceNote.id}`, { headers: asAlice })).statusCode, 200)
    assert.equal((await same('GET', `/notes/${bobNote.id}`, { headers: asAlice })).statusCode, 400)
    assert.equal((await same('DELETE', `/notes/${bobNote.id}`, { headers: asAlice })).statusCode, 422)
  })

  it('keeps scoped writes inside the scope (403 out of it) and fills scope-fixed fields on create', async () => {
    assert.equal((await same('POST', '/notes', { headers: asAlice, payload: { title: 'x', owner: 'bob' } })).statusCode, 403)
    assert.equal((await same('PATCH', `/notes/${aliceNote.id}`, { headers: asAlice, payload: { owner: 'bob' } })).statusCode, 403)
    const res = await app.inject({ method: 'POST', url: '/custom/notes', headers: asAlice, payload: { title: 'filled' } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().owner, 'alice')
  })

  it('throws coded HTTPExceptions a handler can catch', async () => {
    const notes = crudService(app, 'notes')
    const request = { headers: asAlice, params: {}, query: {}, log: app.log } as unknown as FastifyRequest
    await assert.rejects(notes.get({ request, id: bobNote.id }), (error) => error instanceof HTTPException && error.statusCode === 400 && error.code === 'FMC_ERR_NOT_FOUND')
    await assert.rejects(notes.list({ request, query: { filters: { title: { $nope: 1 } } } }), (error) => error instanceof HTTPException && error.code === 'FMC_ERR_FILTER_INVALID')
    assert.deepEqual((await notes.list({ request, query: { filters: { title: 'a1' } } })).map((doc) => doc.title), ['a1'])
    // The body given is validated and filled in as a copy: the caller's object is not changed.
    const body = { title: 'copy' } as { title: string, owner: string }
    assert.equal((await notes.create({ request, body })).owner, 'alice')
    assert.deepEqual(body, { title: 'copy' })
  })

  it('runs operations whose routes are disabled, and does not run the route dependencies', async () => {
    const closed = crudService(app, 'closedNotes', { model: Note })
    const request = { headers: {}, params: {}, query: {}, log: app.log } as unknown as FastifyRequest
    assert.equal((await app.inject({ method: 'GET', url: '/closed-notes' })).statusCode, 403)
    const created = await closed.create({ request, body: { title: 'kept', owner: 'carl' } })
    assert.ok((await closed.list({ request })).some((doc) => doc.id === created.id))
    await closed.delete({ request, id: created.id })
    assert.equal((await app.inject({ method: 'DELETE', url: `/closed-notes/${created.id}` })).statusCode, 404)
    await assert.rejects(closed.get({ request, id: created.id }), (error) => error instanceof HTTPException && error.code === 'FMC_ERR_NOT_FOUND')
  })

  it('names the routers it knows when asked for another one, and refuses models that are not the router\'s', () => {
    assert.throws(() => crudService(app, 'people'), /no router named 'people': the routers are named 'users', 'allNotes', 'notes', 'closedNotes'/)
    assert.throws(() => crudService(app, 'users', { model: User }), /not the router's/)
  })
})
