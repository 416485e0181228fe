// Under a filterDependency scope: a PUT gets the fields an equality scope fixes as a create does, a
// refused write says what the caller did (not which option refused it), and the list's OpenAPI says
// when `filters` is ignored.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { crudService, MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, type RouterOptions, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

const asAlice = { 'x-user': 'alice' }
const OUT_OF_SCOPE = 'Write refused: the values sent would put the document outside the documents the caller may access'

const ownerScope = async (request: FastifyRequest) => ({ owner: request.headers['x-user'] })
const teamScope = async (request: FastifyRequest) => ({ owner: { $in: String(request.headers['x-team'] ?? '').split(',') } })
/** `owner` optional: the scope alone decides it. */
const Memo = MongoModel('Memo', { title: Type.String(), owner: Type.Optional(Type.String()) })

const router = (prefix: string, extra: Partial<RouterOptions>): RouterOptions => ({ model: Note, collectionName: 'notes', prefix, ...extra })

describeEachStore('a PUT under an equality scope', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      router('/notes', { filterDependency: ownerScope }),
      router('/raw-notes', {}),
      { model: Memo, collectionName: 'memos', prefix: '/memos', filterDependency: ownerScope },
      { model: Memo, collectionName: 'memos', prefix: '/team-memos', name: 'teamMemos', filterDependency: teamScope },
    )
  })
  after(() => t.close())

  it("fills the scope's value into a required field the body leaves out (was 422)", async () => {
    const note = await createDoc(t.app, '/notes', { title: 'mine' }, asAlice)
    const res = await t.app.inject({ method: 'PUT', url: `/notes/${note.id}`, payload: { title: 'renamed' }, headers: asAlice })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: note.id, title: 'renamed', owner: 'alice' })
    assert.deepEqual(await getJson(t.app, `/raw-notes/${note.id}`), { id: note.id, title: 'renamed', owner: 'alice' })
  })

  it("fills the scope's value into an optional field the body leaves out (was 403)", async () => {
    const memo = await createDoc(t.app, '/memos', { title: 'mine' }, asAlice)
    const res = await t.app.inject({ method: 'PUT', url: `/memos/${memo.id}`, payload: { title: 'renamed' }, headers: asAlice })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().owner, 'alice')
  })

  it('fills the service replace as the route', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'service' }, asAlice)
    const request = { headers: asAlice, params: {}, query: {}, log: t.app.log } as unknown as FastifyRequest
    // The type asks for every required field; the scope fills this one in.
    const body = { title: 'service-2' } as { title: string, owner: string }
    const replaced = await crudService(t.app, 'notes', { model: Note }).replace({ request, id: note.id, body })
    assert.deepEqual(replaced, { id: note.id, title: 'service-2', owner: 'alice' })
    assert.deepEqual(body, { title: 'service-2' })
  })

  it('still refuses a body that sets the field to another value, saying what the caller did', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'kept' }, asAlice)
    const res = await t.app.inject({ method: 'PUT', url: `/notes/${note.id}`, payload: { title: 'x', owner: 'bob' }, headers: asAlice })
    expectDetail(res, 403, OUT_OF_SCOPE)
    const patched = await t.app.inject({ method: 'PATCH', url: `/notes/${note.id}`, payload: { owner: 'bob' }, headers: asAlice })
    expectDetail(patched, 403, OUT_OF_SCOPE)
    const created = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 'x', owner: 'bob' }, headers: asAlice })
    expectDetail(created, 403, OUT_OF_SCOPE)
    assert.equal((await getJson(t.app, `/raw-notes/${note.id}`)).owner, 'alice')
  })

  it('fills nothing a scope does not fix to one value: leaving the field out of such a PUT is refused', async () => {
    const asTeam = { 'x-team': 'alice,bob' }
    const memo = await createDoc(t.app, '/team-memos', { title: 'team', owner: 'bob' }, asTeam)
    const res = await t.app.inject({ method: 'PUT', url: `/team-memos/${memo.id}`, payload: { title: 'ownerless' }, headers: asTeam })
    expectDetail(res, 403, OUT_OF_SCOPE)
  })
})

describe("the list's OpenAPI under a scope", () => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      storeModes[0]!,
      router('/ignoring', { name: 'ignoring', filterDependency: ownerScope }),
      router('/anding', { name: 'anding', filterDependency: ownerScope, filtersUnderScope: 'and' }),
      router('/open', { name: 'open' }),
    )
  })
  after(() => t.close())

  const filtersDoc = async (prefix: string): Promise<string> => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const parameters = spec.paths[prefix].get.parameters as Json[]
    return parameters.find((parameter) => parameter.name === 'filters').description
  }

  it("says that `filters` is ignored under the default filtersUnderScope: 'ignore'", async () => {
    assert.match(await filtersDoc('/ignoring'), /^Ignored on this list/)
  })

  it('documents `filters` as a filter where the list applies it', async () => {
    for (const prefix of ['/anding', '/open']) {
      const description = await filtersDoc(prefix)
      assert.doesNotMatch(description, /Ignored/)
      assert.match(description, /MongoDB filter syntax/)
    }
  })
})
