import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDEmbed, CRUDLookup, HTTPException, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { buildRelationsApp } from '../harness/relations.ts'
import { createDoc, getJson, type Json } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

const NoteComment = MongoModel('NoteComment', { body: Type.String(), noteId: ObjectIdField() })
const NoteTag = MongoModel('NoteTag', { label: Type.String() })

type LookupOptions = ConstructorParameters<typeof CRUDLookup>[0]
type EmbedOptions = ConstructorParameters<typeof CRUDEmbed>[0]

const lookupOptions = { model: NoteComment, collectionName: 'comments', prefix: 'comments', localField: '_id', foreignField: 'noteId' }
const embedOptions = { model: NoteTag, embedName: 'tags' }

/** Builds declarations from deliberately wrong options, bypassing the type checker. */
const lookup = (extra: Record<string, unknown>) => new CRUDLookup({ ...lookupOptions, ...extra } as unknown as LookupOptions)
const embed = (extra: Record<string, unknown>) => new CRUDEmbed({ ...embedOptions, ...extra } as unknown as EmbedOptions)

const asEditor = { 'x-editor': 'yes' }

/** A dependency that records its name in `calls`, and refuses with 403 when `refuse` says so. */
function recorder(calls: string[], name: string, refuse: (request: FastifyRequest) => boolean = () => false) {
  return async (request: FastifyRequest) => {
    calls.push(name)
    if (refuse(request)) throw new HTTPException(403, 'Editors only')
  }
}

describeEachStore("writing an embedded item is an update of the parent: it runs the parent's dependenciesUpdateOne", (mode) => {
  let t: TestApp
  const calls: string[] = []
  before(async () => {
    const own = (who: string) => ({
      dependenciesGetAll: [recorder(calls, `${who}:getAll`)],
      dependenciesGetOne: [recorder(calls, `${who}:getOne`)],
      dependenciesCreateOne: [recorder(calls, `${who}:createOne`)],
      dependenciesReplaceOne: [recorder(calls, `${who}:replaceOne`)],
      dependenciesUpdateOne: [recorder(calls, `${who}:updateOne`)],
      dependenciesDeleteOne: [recorder(calls, `${who}:deleteOne`)],
    })
    t = await buildRelationsApp(mode, {}, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      dependenciesGetOne: [recorder(calls, 'parent:getOne')],
      dependenciesUpdateOne: [recorder(calls, 'parent:updateOne', (request) => request.headers['x-editor'] === undefined)],
      lookups: [new CRUDLookup({ ...lookupOptions, ...own('lookup') })],
      embeds: [new CRUDEmbed({ ...embedOptions, ...own('embed') })],
    })
  })
  after(() => t.close())

  async function seed() {
    const note = await createDoc(t.app, '/notes', { title: 'n', owner: 'o' })
    const tag = await createDoc(t.app, `/notes/${note.id}/tags`, { label: 'red' }, asEditor)
    const comment = await createDoc(t.app, `/notes/${note.id}/comments`, { body: 'hi' })
    calls.length = 0
    return { note, tag, comment }
  }

  const embedWrites = (note: Json, tag: Json) =>
    [
      { method: 'POST', url: `/notes/${note.id}/tags`, payload: { label: 'blue' }, own: 'embed:createOne', status: 201 },
      { method: 'PATCH', url: `/notes/${note.id}/tags/${tag.id}`, payload: { label: 'green' }, own: 'embed:updateOne', status: 200 },
      { method: 'DELETE', url: `/notes/${note.id}/tags/${tag.id}`, own: 'embed:deleteOne', status: 204 },
    ] as const

  it("refuses embed POST, PATCH and DELETE with the parent's 403 'Editors only', and writes nothing", async () => {
    const { note, tag } = await seed()
    for (const { own: _own, status: _status, ...request } of embedWrites(note, tag)) {
      calls.length = 0
      expectDetail(await t.app.inject(request), 403, 'Editors only')
      assert.deepEqual(calls, ['parent:getOne', 'parent:updateOne'], `${request.method} ${request.url}`)
    }
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`), [tag])
  })

  it("runs the parent's dependenciesGetOne, then its dependenciesUpdateOne, then the embed's own, on embed writes", async () => {
    for (const step of [0, 1, 2]) {
      const { note, tag } = await seed()
      const { own, status, ...request } = embedWrites(note, tag)[step]!
      const res = await t.app.inject({ ...request, headers: asEditor })
      assert.equal(res.statusCode, status, res.body)
      assert.deepEqual(calls, ['parent:getOne', 'parent:updateOne', own], `${request.method} ${request.url}`)
    }
  })

  it("serves embed GET list and GET one without the parent's dependenciesUpdateOne", async () => {
    const { note, tag } = await seed()
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags`), [tag])
    assert.deepEqual(calls, ['parent:getOne', 'embed:getAll'])
    calls.length = 0
    assert.deepEqual(await getJson(t.app, `/notes/${note.id}/tags/${tag.id}`), tag)
    assert.deepEqual(calls, ['parent:getOne', 'embed:getOne'])
  })

  it("keeps every lookup route out of the parent's dependenciesUpdateOne (children live in another collection)", async () => {
    const { note, comment } = await seed()
    const comments = `/notes/${note.id}/comments`
    for (const [request, own, status] of [
      [{ method: 'GET', url: comments }, 'lookup:getAll', 200],
      [{ method: 'GET', url: `${comments}/${comment.id}` }, 'lookup:getOne', 200],
      [{ method: 'POST', url: comments, payload: { body: 'new' } }, 'lookup:createOne', 201],
      [{ method: 'PUT', url: `${comments}/${comment.id}`, payload: { body: 'put' } }, 'lookup:replaceOne', 200],
      [{ method: 'PATCH', url: `${comments}/${comment.id}`, payload: { body: 'patched' } }, 'lookup:updateOne', 200],
      [{ method: 'DELETE', url: `${comments}/${comment.id}` }, 'lookup:deleteOne', 204],
    ] as const) {
      calls.length = 0
      const res = await t.app.inject(request)
      assert.equal(res.statusCode, status, `${request.method} ${request.url}: ${res.body}`)
      assert.deepEqual(calls, ['parent:getOne', own], `${request.method} ${request.url}`)
    }
  })
})

describeEachStore('a dependency listed for the parent and for the child runs once per request', (mode) => {
  let t: TestApp
  const calls: string[] = []
  before(async () => {
    const shared = recorder(calls, 'shared')
    t = await buildRelationsApp(mode, {}, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      dependenciesGetOne: [shared],
      dependenciesUpdateOne: [shared, recorder(calls, 'parent:updateOne')],
      embeds: [new CRUDEmbed({ ...embedOptions, dependenciesCreateOne: [recorder(calls, 'embed:createOne'), shared] })],
    })
  })
  after(() => t.close())

  it('runs it at its first place only, the others in the order declared', async () => {
    const note = await createDoc(t.app, '/notes', { title: 'n', owner: 'o' })
    calls.length = 0
    await createDoc(t.app, `/notes/${note.id}/tags`, { label: 'red' })
    assert.deepEqual(calls, ['shared', 'parent:updateOne', 'embed:createOne'])
  })
})

describe('the OpenAPI of child routes shows 403 where dependencies run', () => {
  let t: TestApp
  let spec: Json
  before(async () => {
    t = await buildRelationsApp(storeModes[0]!, {}, {
      model: Note,
      collectionName: 'notes',
      prefix: '/notes',
      dependenciesUpdateOne: [async () => undefined],
      lookups: [new CRUDLookup(lookupOptions)],
      embeds: [new CRUDEmbed(embedOptions)],
    })
    spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  })
  after(() => t.close())

  const has403 = (path: string, method: string) => '403' in spec.paths[path][method].responses

  it("documents 403 on embed writes when only the parent's dependenciesUpdateOne is set", () => {
    assert.equal(has403('/notes/{id}/tags', 'post'), true)
    assert.equal(has403('/notes/{id}/tags/{embed_id}', 'patch'), true)
    assert.equal(has403('/notes/{id}/tags/{embed_id}', 'delete'), true)
  })

  it('documents no 403 on embed reads nor on lookup routes then', () => {
    assert.equal(has403('/notes/{id}/tags', 'get'), false)
    assert.equal(has403('/notes/{id}/tags/{embed_id}', 'get'), false)
    for (const method of ['get', 'post']) assert.equal(has403('/notes/{id}/comments', method), false, method)
    for (const method of ['get', 'put', 'patch', 'delete']) assert.equal(has403('/notes/{id}/comments/{child_id}', method), false, method)
  })
})

type Route = 'GetAll' | 'GetOne' | 'CreateOne' | 'ReplaceOne' | 'UpdateOne' | 'DeleteOne'

/** Method and OpenAPI path of each child route, per declaration; embeds have no ReplaceOne (no PUT). */
const childRoutes: Record<'comments' | 'tags', Partial<Record<Route, [string, string]>>> = {
  comments: {
    GetAll: ['get', '/comments'],
    CreateOne: ['post', '/comments'],
    GetOne: ['get', '/comments/{child_id}'],
    ReplaceOne: ['put', '/comments/{child_id}'],
    UpdateOne: ['patch', '/comments/{child_id}'],
    DeleteOne: ['delete', '/comments/{child_id}'],
  },
  tags: {
    GetAll: ['get', '/tags'],
    CreateOne: ['post', '/tags'],
    GetOne: ['get', '/tags/{embed_id}'],
    UpdateOne: ['patch', '/tags/{embed_id}'],
    DeleteOne: ['delete', '/tags/{embed_id}'],
  },
}
const ROUTES: Route[] = ['GetAll', 'GetOne', 'CreateOne', 'ReplaceOne', 'UpdateOne', 'DeleteOne']
const payloads = { comments: { body: 'b' }, tags: { label: 'l' } }

describe('disable* keys on CRUDLookup and CRUDEmbed leave exactly those routes out', () => {
  let t: TestApp
  let spec: Json
  /** One router per key, at `/<key>`, whose lookup and embed both disable it (embeds have no disableReplaceOne). */
  before(async () => {
    t = await buildRelationsApp(
      storeModes[0]!,
      {},
      ...ROUTES.map((route) => ({
        model: Note,
        collectionName: 'notes',
        prefix: `/disable${route}`,
        lookups: [new CRUDLookup({ ...lookupOptions, [`disable${route}`]: true })],
        embeds: [new CRUDEmbed({ ...embedOptions, ...(route === 'ReplaceOne' ? {} : { [`disable${route}`]: true }) })],
      })),
      // every key set to false changes nothing
      {
        model: Note,
        collectionName: 'notes',
        prefix: '/none',
        lookups: [new CRUDLookup({ ...lookupOptions, ...Object.fromEntries(ROUTES.map((r) => [`disable${r}`, false])) })],
        embeds: [new CRUDEmbed({ ...embedOptions, ...Object.fromEntries(ROUTES.filter((r) => r !== 'ReplaceOne').map((r) => [`disable${r}`, false])) })],
      },
    )
    spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  })
  after(() => t.close())

  const documented = (prefix: string, path: string, method: string) => spec.paths[`/${prefix}/{id}${path}`]?.[method] !== undefined

  for (const disabled of ROUTES) {
    for (const child of ['comments', 'tags'] as const) {
      it(`disable${disabled} on the ${child} declaration: that route is 404 and absent from /openapi.json, the others stay`, async () => {
        const prefix = `disable${disabled}`
        const note = await createDoc(t.app, `/${prefix}`, { title: 'n', owner: 'o' })
        // seeded through the router that disables nothing, over the same collections
        const childId = (await createDoc(t.app, `/none/${note.id}/${child}`, payloads[child])).id
        for (const [route, entry] of Object.entries(childRoutes[child]) as [Route, [string, string]][]) {
          const [method, path] = entry
          const url = `/${prefix}/${note.id}${path.replace(/\{\w+\}/, childId)}`
          const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url, ...(method === 'post' || method === 'put' || method === 'patch' ? { payload: payloads[child] } : {}) })
          if (route === disabled) {
            assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`)
            assert.equal(typeof res.json().detail, 'string', res.body)
            assert.equal(documented(prefix, path, method), false, `${method} ${path} is documented`)
          } else {
            assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
            assert.equal(documented(prefix, path, method), true, `${method} ${path} is not documented`)
          }
        }
      })
    }
  }

  it('keeps every child route when every key is false', () => {
    for (const child of ['comments', 'tags'] as const) {
      for (const [method, path] of Object.values(childRoutes[child])) assert.equal(documented('none', path, method), true, `${method} ${path}`)
    }
  })
})

describe('disable* keys on CRUDLookup and CRUDEmbed are checked at construction', () => {
  for (const [owner, build, code] of [
    ['CRUDLookup', lookup, 'FMC_ERR_LOOKUP_INVALID'],
    ['CRUDEmbed', embed, 'FMC_ERR_EMBED_INVALID'],
  ] as const) {
    for (const [value, shown] of [
      ['yes', '"yes"'],
      [1, '1'],
      [null, 'null'],
    ] as const) {
      it(`${owner}: disableGetAll: ${shown} throws naming the option and the value`, () => {
        assert.throws(() => build({ disableGetAll: value }), { name: 'SetupError', code, message: `${owner}: 'disableGetAll' must be a boolean, received ${shown}` })
      })
    }

    it(`${owner}: disable_get_one throws naming disableGetOne`, () => {
      assert.throws(() => build({ disable_get_one: true }), { name: 'SetupError', code, message: `${owner}: unknown option 'disable_get_one': use disableGetOne` })
    })

    it(`${owner}: dependencies_delete_one throws naming dependenciesDeleteOne`, () => {
      assert.throws(() => build({ dependencies_delete_one: [] }), { name: 'SetupError', code, message: `${owner}: unknown option 'dependencies_delete_one': use dependenciesDeleteOne` })
    })
  }

  it('CRUDLookup accepts disableReplaceOne', () => {
    assert.doesNotThrow(() => lookup({ disableReplaceOne: true }))
  })

  for (const value of [true, false]) {
    it(`CRUDEmbed: disableReplaceOne: ${value} throws saying embedded items have no PUT route`, () => {
      assert.throws(() => embed({ disableReplaceOne: value }), {
        name: 'SetupError',
        code: 'FMC_ERR_EMBED_INVALID',
        message: "CRUDEmbed: 'disableReplaceOne' does not apply: embedded items have no PUT route (PATCH an item, or PUT the parent)",
      })
    })
  }
})
