// docs/security.md, "Access policy": the README's three roles (admin, member, public) on every store, on
// every channel: list, count, get, fields=, groups, writes, the three PATCH media types, _batch and the
// service API; and what registration refuses.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyRequest } from 'fastify'
import { CRUDLookup, CRUDPopulate, CRUDRouter, createApp, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { expectDetail } from '../harness/expect.ts'
import { describeEachStore } from '../harness/stores.ts'

const Post = MongoModel('Post', {
  title: Type.String(),
  owner: Type.String(),
  published: Type.Boolean(),
  email: Type.Optional(Type.String()),
  internalNotes: Type.Optional(Type.String()),
})

/** The README's example: claims come from a test header (an auth plugin's `request.user` in an app). */
const ACCESS = [
  { role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true, create: true, update: true, delete: true },
  {
    role: 'member',
    when: { claim: 'sub' },
    read: { $or: [{ owner: { $claim: 'sub' } }, { published: true }] },
    create: { owner: { $claim: 'sub' } },
    update: { owner: { $claim: 'sub' } },
    delete: false,
    hiddenFields: ['internalNotes'],
    readOnlyFields: ['owner'],
  },
  { role: 'public', read: { published: true }, hiddenFields: ['internalNotes', 'email'] },
]
const claimsFromHeader = (request: FastifyRequest) => {
  const raw = request.headers['x-claims']
  return typeof raw === 'string' ? (JSON.parse(raw) as Record<string, unknown>) : undefined
}
const as = (claims: Record<string, unknown>) => ({ 'x-claims': JSON.stringify(claims) })
const ADMIN = as({ sub: 'root', role: 'admin' })
const ALICE = as({ sub: 'alice' })
const BOB = as({ sub: 'bob' })

type Doc = Record<string, unknown>

describeEachStore('access: three roles on every channel', (mode) => {
  let t: TestApp
  const ids: Record<string, string> = {}
  before(async () => {
    t = await buildApp(mode, { model: Post, collectionName: 'posts', prefix: '/posts', access: ACCESS as never, accessClaims: claimsFromHeader })
    for (const [key, owner, published] of [['alicePrivate', 'alice', false], ['alicePublic', 'alice', true], ['bobPrivate', 'bob', false]] as const) {
      const created = await t.app.inject({ method: 'POST', url: '/posts', headers: ADMIN, payload: { title: key, owner, published, email: `${owner}@example.com`, internalNotes: `notes of ${key}` } })
      assert.equal(created.statusCode, 201, created.body)
      ids[key] = created.json().id
    }
  })
  after(() => t.close())

  const list = async (headers: Record<string, string>, query = '') => {
    const response = await t.app.inject({ url: `/posts${query}`, headers })
    assert.equal(response.statusCode, 200, response.body)
    return (response.json() as Doc[]).sort((a, b) => String(a.title).localeCompare(String(b.title)))
  }

  it('lists what each role may read, with the fields it sees', async () => {
    assert.deepEqual((await list(ADMIN)).map((doc) => doc.title), ['alicePrivate', 'alicePublic', 'bobPrivate'])
    const alice = await list(ALICE)
    assert.deepEqual(alice.map((doc) => doc.title), ['alicePrivate', 'alicePublic'])
    assert.ok(alice.every((doc) => doc.internalNotes === undefined && typeof doc.email === 'string'))
    const anonymous = await list({})
    assert.deepEqual(anonymous.map((doc) => Object.keys(doc).sort()), [['id', 'owner', 'published', 'title']])
  })

  it('answers GET one as the list does, and counts only what the role may read', async () => {
    const bobsPrivate = await t.app.inject({ url: `/posts/${ids.bobPrivate}`, headers: ALICE })
    assert.equal(bobsPrivate.statusCode, 400)
    const shown = await t.app.inject({ url: `/posts/${ids.alicePublic}` })
    assert.equal(shown.statusCode, 200)
    assert.equal(shown.json().email, undefined)
    assert.ok(shown.headers.etag !== undefined, 'a role that does not see every field still gets the tag of the document')
    const counted = await t.app.inject({ url: '/posts?limit=1', headers: { ...ALICE, prefer: 'count=exact' } })
    assert.equal(counted.headers['x-total-count'], '2')
  })

  it('refuses fields= naming a field the role does not see, as an unknown one', async () => {
    const hidden = await t.app.inject({ url: '/posts?fields=title,email' })
    assert.equal(hidden.statusCode, 422)
    const unknown = await t.app.inject({ url: '/posts?fields=title,nothing' })
    assert.equal(unknown.statusCode, 422)
    assert.equal(hidden.json().detail.replace('email', 'X'), unknown.json().detail.replace('nothing', 'X'))
    assert.equal((await t.app.inject({ url: '/posts?fields=title,email', headers: ALICE })).statusCode, 200)
  })

  it('never filters, sorts or groups on a field some role does not see, whoever asks', async () => {
    for (const url of [`/posts${filtersQuery({ email: 'bob@example.com' })}`, '/posts?sort_by=email', '/posts/_groups?by=email', `/posts${filtersQuery({ internalNotes: { $regex: '^n' } })}`]) {
      const response = await t.app.inject({ url, headers: ADMIN })
      assert.equal(response.statusCode, 422, `${url}: ${response.body}`)
    }
  })

  it("ANDs client filters with what the role may read, and groups only that", async () => {
    assert.deepEqual((await list(ALICE, filtersQuery({ owner: 'bob' }))).map((doc) => doc.title), [])
    const groups = await t.app.inject({ url: '/posts/_groups?by=owner', headers: ALICE })
    assert.deepEqual(groups.json(), [{ owner: 'alice', count: 2 }])
  })

  it('fills and checks what a member creates; refuses its read-only and hidden fields', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/posts', headers: ALICE, payload: { title: 'new', published: false } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().owner, 'alice')
    const forged = await t.app.inject({ method: 'POST', url: '/posts', headers: ALICE, payload: { title: 'forged', owner: 'bob', published: false } })
    assert.equal(forged.statusCode, 403)
    const secret = await t.app.inject({ method: 'POST', url: '/posts', headers: ALICE, payload: { title: 'x', published: false, internalNotes: 'mine' } })
    assert.equal(secret.statusCode, 422)
    const anonymous = await t.app.inject({ method: 'POST', url: '/posts', payload: { title: 'x', owner: 'x', published: true } })
    expectDetail(anonymous, 403, "Refused: the role 'public' may not create documents here")
  })

  it('lets a member update only its own documents, keeping what it does not see, and never delete', async () => {
    const own = await t.app.inject({ method: 'PATCH', url: `/posts/${ids.alicePrivate}`, headers: ALICE, payload: { title: 'renamed' } })
    assert.equal(own.statusCode, 200, own.body)
    assert.equal(own.json().internalNotes, undefined)
    const stored = await t.app.inject({ url: `/posts/${ids.alicePrivate}`, headers: ADMIN })
    assert.equal(stored.json().internalNotes, 'notes of alicePrivate')
    const other = await t.app.inject({ method: 'PATCH', url: `/posts/${ids.bobPrivate}`, headers: ALICE, payload: { title: 'mine now' } })
    assert.equal(other.statusCode, 422)
    const owner = await t.app.inject({ method: 'PATCH', url: `/posts/${ids.alicePrivate}`, headers: ALICE, payload: { owner: 'bob' } })
    assert.equal(owner.statusCode, 403, 'an owner the update filter fixes is checked against it')
    const merge = await t.app.inject({ method: 'PATCH', url: `/posts/${ids.alicePrivate}`, headers: { ...ALICE, 'content-type': 'application/merge-patch+json' }, payload: { internalNotes: 'x' } })
    assert.equal(merge.statusCode, 422)
    const jsonPatch = await t.app.inject({
      method: 'PATCH',
      url: `/posts/${ids.alicePrivate}`,
      headers: { ...ALICE, 'content-type': 'application/json-patch+json' },
      payload: [{ op: 'replace', path: '/published', value: true }],
    })
    assert.equal(jsonPatch.statusCode, 200, jsonPatch.body)
    assert.equal((await t.app.inject({ url: `/posts/${ids.alicePrivate}`, headers: ADMIN })).json().internalNotes, 'notes of alicePrivate')
    const put = await t.app.inject({ method: 'PUT', url: `/posts/${ids.alicePrivate}`, headers: ALICE, payload: { title: 'put', published: true } })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal((await t.app.inject({ url: `/posts/${ids.alicePrivate}`, headers: ADMIN })).json().internalNotes, 'notes of alicePrivate')
    const removed = await t.app.inject({ method: 'DELETE', url: `/posts/${ids.alicePrivate}`, headers: ALICE })
    expectDetail(removed, 403, "Refused: the role 'member' may not delete documents here")
  })

  it('decides a batch operation as its route does', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/posts/_batch',
      headers: BOB,
      payload: { atomic: false, operations: [{ op: 'update', id: ids.alicePublic, body: { title: 'taken' } }, { op: 'delete', id: ids.bobPrivate }, { op: 'create', body: { title: 'b', published: false } }] },
    })
    assert.equal(response.statusCode, 200, response.body)
    const results = response.json().results as Array<{ status: number, body?: Doc }>
    assert.deepEqual(results.map((result) => result.status), [422, 403, 201])
    assert.equal(results[2]!.body!.owner, 'bob')
    assert.equal(results[2]!.body!.internalNotes, undefined)
  })
})

describeEachStore('access: each _events subscriber sees what its role may read', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Post, collectionName: 'posts', prefix: '/posts', access: ACCESS as never, accessClaims: claimsFromHeader })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => t.close())

  it('sends a change only to the subscribers whose role reads it, without the fields the role does not see', async () => {
    const anonymous = await EventStreamClient.open(t.app, '/posts/_events')
    const alice = await EventStreamClient.open(t.app, '/posts/_events', ALICE)
    const admin = await EventStreamClient.open(t.app, '/posts/_events', ADMIN)
    try {
      const write = (payload: Doc) => t.app.inject({ method: 'POST', url: '/posts', headers: ADMIN, payload })
      await write({ title: 'bob private', owner: 'bob', published: false, email: 'b@example.com', internalNotes: 'n' })
      await write({ title: 'alice private', owner: 'alice', published: false, email: 'a@example.com', internalNotes: 'n' })
      await write({ title: 'published', owner: 'bob', published: true, email: 'b@example.com', internalNotes: 'n' })
      const [first] = await anonymous.take(1)
      assert.deepEqual(Object.keys(first!.data.document).sort(), ['id', 'owner', 'published', 'title'])
      assert.equal(first!.data.document.title, 'published')
      const seen = await alice.take(2)
      assert.deepEqual(seen.map((event) => event.data.document.title), ['alice private', 'published'])
      assert.ok(seen.every((event) => event.data.document.internalNotes === undefined && event.data.document.email !== undefined))
      assert.deepEqual((await admin.take(3)).map((event) => event.data.document.internalNotes), ['n', 'n', 'n'])
    } finally {
      for (const feed of [anonymous, alice, admin]) feed.close()
    }
  })

  it('refuses a subscriber no role applies to, and a role that may not read', async () => {
    const app = await createApp({ fastify: { logger: false } })
    const db = await openEmbedded()
    await app.register(CRUDRouter as never, { model: Post, collectionName: 'posts', prefix: '/posts', db, accessClaims: claimsFromHeader, access: [{ role: 'writer', create: true }] })
    expectDetail(await app.inject({ url: '/posts/_events' }), 403, "Refused: the role 'writer' may not read documents here")
    await app.close()
    await db.close()
  })
})

describeEachStore('access: a populate into a router with a policy', (mode) => {
  const Board = MongoModel('Board', { name: Type.String(), pinned: Type.Optional(Type.Union([ObjectIdField(), Type.Null()])) })
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: Post, collectionName: 'posts', prefix: '/posts', access: ACCESS as never, accessClaims: claimsFromHeader },
      { model: Board, collectionName: 'boards', prefix: '/boards', populates: [new CRUDPopulate({ field: 'pinned', collection: 'posts', model: Post })] },
    )
  })
  after(() => t.close())

  it('shows a referenced document only to the roles that read it, without what the role does not see', async () => {
    const post = await t.app.inject({ method: 'POST', url: '/posts', headers: ADMIN, payload: { title: 'bob', owner: 'bob', published: false, email: 'b@example.com', internalNotes: 'n' } })
    const board = await t.app.inject({ method: 'POST', url: '/boards', payload: { name: 'b', pinned: post.json().id } })
    const url = `/boards/${board.json().id}`
    assert.equal((await t.app.inject({ url, headers: ALICE })).json().pinned, null)
    assert.equal((await t.app.inject({ url, headers: ADMIN })).json().pinned.internalNotes, 'n')
    const bob = (await t.app.inject({ url, headers: BOB })).json().pinned
    assert.equal(bob.title, 'bob')
    assert.equal(bob.internalNotes, undefined)
    assert.equal((await t.app.inject({ url: `/boards${filtersQuery({ pinned: post.json().id })}`, headers: ADMIN })).statusCode, 422)
  })
})

describeEachStore('access: lookup children through their parent', (mode) => {
  const Comment = MongoModel('Comment', { body: Type.String(), postId: ObjectIdField() })
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, {
      model: Post,
      collectionName: 'posts',
      prefix: '/posts',
      access: ACCESS as never,
      accessClaims: claimsFromHeader,
      lookups: [new CRUDLookup({ model: Comment, collectionName: 'comments', prefix: 'comments', localField: '_id', foreignField: 'postId' })],
    })
  })
  after(() => t.close())

  it("reads and writes a parent's children when the role reads the parent, as their routes run its GetOne guards", async () => {
    const post = async (owner: string, published: boolean) => (await t.app.inject({ method: 'POST', url: '/posts', headers: ADMIN, payload: { title: owner, owner, published } })).json().id
    const [published, hidden] = [await post('bob', true), await post('bob', false)]
    const comment = (id: string) => t.app.inject({ method: 'POST', url: `/posts/${id}/comments`, headers: ALICE, payload: { body: 'hi' } })
    assert.equal((await comment(published)).statusCode, 201)
    assert.equal((await comment(hidden)).statusCode, 400)
    assert.equal((await t.app.inject({ url: `/posts/${hidden}/comments`, headers: ALICE })).statusCode, 400)
    assert.equal((await t.app.inject({ url: `/posts/${published}/comments`, headers: ALICE })).json().length, 1)
  })
})

describe('access: who is refused, and what registration refuses', () => {
  const register = async (options: Record<string, unknown>) => {
    const app = await createApp({ fastify: { logger: false } })
    const db = await openEmbedded()
    try {
      await app.register(CRUDRouter as never, { model: Post, collectionName: 'posts', prefix: '/posts', db, accessClaims: claimsFromHeader, ...options })
      await app.ready()
      return app
    } catch (error) {
      await app.close()
      await db.close()
      throw error
    }
  }

  it('answers 401 without credentials and 403 with some when no role applies', async () => {
    const app = await register({ access: [{ role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true }] })
    expectDetail(await app.inject({ url: '/posts' }), 401, 'Authentication required: no role of this API applies to a caller without credentials')
    expectDetail(await app.inject({ url: '/posts', headers: ALICE }), 403, 'Refused: no role of this API applies to the caller')
    assert.equal((await app.inject({ url: '/posts', headers: ADMIN })).statusCode, 200)
    await app.close()
  })

  it('reads a role from a header a gateway sets', async () => {
    const app = await register({ access: [{ role: 'staff', when: { header: 'x-staff', equals: 'yes' }, read: true }, { role: 'other', read: false }] })
    assert.equal((await app.inject({ url: '/posts', headers: { 'x-staff': 'yes' } })).statusCode, 200)
    expectDetail(await app.inject({ url: '/posts' }), 403, "Refused: the role 'other' may not read documents here")
    await app.close()
  })

  it("reads claims from request.user by default, a list claim holding if any item does", async () => {
    const app = await createApp({ fastify: { logger: false } })
    const db = await openEmbedded()
    app.addHook('onRequest', async (request) => {
      const raw = request.headers['x-claims']
      if (typeof raw === 'string') (request as unknown as { user: unknown }).user = JSON.parse(raw)
    })
    await app.register(CRUDRouter as never, { model: Post, collectionName: 'posts', prefix: '/posts', db, access: [{ role: 'admin', when: { claim: 'roles', equals: 'admin' }, read: true }] })
    assert.equal((await app.inject({ url: '/posts', headers: as({ roles: ['editor', 'admin'] }) })).statusCode, 200)
    assert.equal((await app.inject({ url: '/posts', headers: as({ roles: ['editor'] }) })).statusCode, 403)
    await app.close()
    await db.close()
  })

  it('matches nothing when a filter reads a claim the caller lacks; reads $header values', async () => {
    const app = await register({
      access: [
        { role: 'team', when: { header: 'x-team' }, read: { owner: { $header: 'x-team' } }, create: true },
        { role: 'member', when: { claim: 'role' }, read: { owner: { $claim: 'sub' } } },
      ],
    })
    const created = await app.inject({ method: 'POST', url: '/posts', headers: { 'x-team': 'blue' }, payload: { title: 't', owner: 'blue', published: false } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal((await app.inject({ url: '/posts', headers: { 'x-team': 'blue' } })).json().length, 1)
    assert.equal((await app.inject({ url: '/posts', headers: { 'x-team': 'red' } })).json().length, 0)
    assert.deepEqual((await app.inject({ url: '/posts', headers: as({ role: 'x' }) })).json(), [])
    await app.close()
  })

  it('documents a required field some role does not see as optional in the answer, and answers that role without it', async () => {
    const Strict = MongoModel('Strict', { title: Type.String(), owner: Type.String(), published: Type.Boolean(), email: Type.String(), internalNotes: Type.Optional(Type.String()) })
    const app = await createApp({ fastify: { logger: false } })
    const db = await openEmbedded()
    await app.register(CRUDRouter as never, { model: Strict, collectionName: 'strict', prefix: '/strict', db, accessClaims: claimsFromHeader, access: ACCESS.filter((role) => role.role !== 'member') })
    const document = (await app.inject({ url: '/openapi.json' })).json()
    const answer = document.paths['/strict/{id}'].get.responses['200'].content['application/json'].schema
    assert.deepEqual(answer, { $ref: '#/components/schemas/StrictAnswer' })
    assert.deepEqual(document.components.schemas.StrictAnswer.required.sort(), ['owner', 'published', 'title'])
    assert.deepEqual(document.components.schemas.Strict.required.sort(), ['email', 'owner', 'published', 'title'])
    const created = await app.inject({ method: 'POST', url: '/strict', headers: ADMIN, payload: { title: 't', owner: 'o', published: true, email: 'e@example.com' } })
    assert.equal(created.json().email, 'e@example.com')
    const shown = await app.inject({ url: `/strict/${created.json().id}` })
    assert.deepEqual(Object.keys(shown.json()).sort(), ['id', 'owner', 'published', 'title'])
    await app.close()
    await db.close()
  })

  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a hidden field of a role in sortable', { sortable: ['title', 'email'], access: ACCESS }, /'sortable\[1\]' names 'email', which the access role 'public' does not see/],
    ['a hidden field of a role in filterable', { filterable: ['internalNotes'], access: ACCESS }, /'filterable\[0\]' names 'internalNotes', which the access role 'member' does not see/],
    ['a hidden field of a role in defaultSort', { defaultSort: { field: 'email' }, access: ACCESS }, /'defaultSort.field' names 'email'/],
    ['a policy filter on a field some role does not see', { access: [{ role: 'a', read: { email: 'x' }, hiddenFields: [] }, { role: 'b', hiddenFields: ['email'] }] }, /'access\[0\].read': field "email" is not filterable/],
    ['a policy filter outside the grammar', { access: [{ role: 'a', read: { $where: '1' } }] }, /'access\[0\].read': operator \$where is not allowed/],
    ['a hidden field the model lacks', { access: [{ role: 'a', hiddenFields: ['nope'] }] }, /'access\[0\]'.hiddenFields: 'nope' is not a top-level field of the model of 'posts'/],
    ['two roles of one name', { access: [{ role: 'a' }, { role: 'a' }] }, /'access\[1\]'.role: 'a' names two roles/],
    ['an unknown key of a role', { access: [{ role: 'a', reads: true }] }, /'access\[0\]': unknown key 'reads'/],
  ]
  for (const [what, options, message] of refusals) {
    it(`refuses ${what}`, async () => {
      await assert.rejects(register(options), message)
    })
  }
})
