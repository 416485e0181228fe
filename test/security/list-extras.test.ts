import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDLookup, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { Note, User, UserOut } from '../harness/models.ts'
import { createDoc, getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * Counts, projections and cursors reveal nothing a filter may not see: a hidden field cannot be named
 * in fields= (and is refused exactly as an unknown one), a count runs under the row scope, and a
 * cursor is bound to its filter, scope, sort and list, and carries no readable value.
 */
const Comment = MongoModel('Comment', { body: Type.String(), noteId: ObjectIdField() })
const LINK = /^<([^>]+)>; rel="next"$/
const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }

describeEachStore('fields=, counts and cursors stay within visibility and scope', (mode) => {
  let t: TestApp
  let aliceNotes: string[]
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, modelOut: UserOut, collectionName: 'users', prefix: '/users', sortable: ['name', 'email'] },
      {
        model: Note,
        collectionName: 'notes',
        prefix: '/notes',
        filterDependency: async (request: FastifyRequest) => ({ owner: request.headers['x-user'] }),
        lookups: [new CRUDLookup({ model: Comment, collectionName: 'comments', prefix: 'comments', localField: '_id', foreignField: 'noteId' })],
      },
      { model: User, modelOut: UserOut, collectionName: 'users', prefix: '/users2', sortable: ['name'], cursorSecret: 'another secret of at least 32 characters!' },
    )
    await seedDocs(t.app, '/users', ['s3cret-a', 's3cret-b', 's3cret-c'].map((password, i) => ({ name: `u${i}`, email: `u${i}@x.org`, password })))
    aliceNotes = (await seedDocs(t.app, '/notes', ['a1', 'a2', 'a3'].map((title) => ({ title, owner: 'alice' })), asAlice)).map((n) => n.id)
    await seedDocs(t.app, '/notes', ['b1', 'b2', 'b3', 'b4', 'b5'].map((title) => ({ title, owner: 'bob' })), asBob)
    for (const body of ['c1', 'c2', 'c3']) await createDoc(t.app, `/notes/${aliceNotes[0]}/comments`, { body }, asAlice)
    for (const body of ['d1', 'd2', 'd3']) await createDoc(t.app, `/notes/${aliceNotes[1]}/comments`, { body }, asAlice)
  })
  after(() => t.close())

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers })
  const nextOf = (link: unknown) => LINK.exec(String(link))![1]!
  const cursorOf = (link: unknown) => new URL(nextOf(link), 'http://x').searchParams.get('cursor')!

  it('a hidden field in fields= is a 422, worded as for a field that does not exist', async () => {
    const hidden = await get('/users?fields=name,password')
    const unknown = await get('/users?fields=name,nosuchfield')
    assert.equal(hidden.statusCode, 422)
    assert.equal(unknown.statusCode, 422)
    assert.equal(hidden.json().detail.replace('password', 'X'), unknown.json().detail.replace('nosuchfield', 'X'))
    const one = await get(`/users/${(await getJson(t.app, '/users'))[0].id}?fields=password`)
    assert.equal(one.statusCode, 422)
    assert.doesNotMatch(one.body, /s3cret/)
  })

  it('a cursor does not carry its sort value readably (and a hidden field is no sort field at all)', async () => {
    assert.equal((await get('/users?sort_by=password&limit=1')).statusCode, 422)
    const res = await get('/users?sort_by=email&limit=1')
    const cursor = cursorOf(res.headers.link)
    assert.doesNotMatch(Buffer.from(cursor, 'base64url').toString('latin1'), /u0@x\.org/)
    assert.doesNotMatch(cursor, /u0@x\.org/)
  })

  it('the count runs under the scope, estimated or exact, whatever the client filters', async () => {
    for (const prefer of ['count=exact', 'count=estimated']) {
      const res = await get(`/notes${filtersQuery({ owner: 'bob' }, { limit: 1 })}`, { ...asAlice, prefer })
      assert.equal(res.headers['x-total-count'], '3', prefer)
      assert.equal(res.headers['preference-applied'], 'count=exact', prefer)
    }
    const none = await get('/notes?limit=1', { 'x-user': 'mallory', prefer: 'count=estimated' })
    assert.equal(none.headers['x-total-count'], '0')
  })

  it('a child list out of scope is not found, and counts nothing', async () => {
    const res = await get(`/notes/${aliceNotes[0]}/comments`, { ...asBob, prefer: 'count=exact' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.headers['x-total-count'], undefined)
  })

  it('an altered cursor is a 400, never a 500', async () => {
    const link = (await get('/users?sort_by=name&limit=1')).headers.link
    const cursor = cursorOf(link)
    const bytes = Buffer.from(cursor, 'base64url')
    const tampered: string[] = []
    for (const at of [0, 13, bytes.length - 1]) {
      const copy = Buffer.from(bytes)
      copy[at]! ^= 1
      tampered.push(copy.toString('base64url'))
    }
    for (const bad of [...tampered, 'x', '', '%%%', 'A'.repeat(200), Buffer.from('["zzz","65a000000000000000000001"]').toString('base64url')]) {
      const res = await get(`/users?sort_by=name&limit=1&cursor=${encodeURIComponent(bad)}`)
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
      assert.match(res.json().detail, /cursor/)
    }
  })

  it('a cursor replayed with another filter, sort, direction or list is a 400', async () => {
    const cursor = cursorOf((await get(`/users${filtersQuery({ name: { $ne: 'zz' } }, { sort_by: 'name', limit: 1 })}`)).headers.link)
    const replays = [
      `/users${filtersQuery({ name: { $ne: 'u0' } }, { sort_by: 'name', limit: 1, cursor })}`,
      `/users?sort_by=name&limit=1&cursor=${cursor}`,
      `/users${filtersQuery({ name: { $ne: 'zz' } }, { sort_by: 'email', limit: 1, cursor })}`,
      `/users${filtersQuery({ name: { $ne: 'zz' } }, { sort_by: 'name', sort_dir: -1, limit: 1, cursor })}`,
      // The same model and collection under another router: another secret.
      `/users2${filtersQuery({ name: { $ne: 'zz' } }, { sort_by: 'name', limit: 1, cursor })}`,
    ]
    for (const url of replays) assert.equal((await get(url)).statusCode, 400, url)
    // The cursor itself is fine where it was issued.
    assert.equal((await get(`/users${filtersQuery({ name: { $ne: 'zz' } }, { sort_by: 'name', limit: 1, cursor })}`)).statusCode, 200)
  })

  it("a cursor is bound to the caller's scope and to the parent of a child list", async () => {
    const aliceLink = (await get('/notes?sort_by=title&limit=1', asAlice)).headers.link
    assert.equal((await get(nextOf(aliceLink), asBob)).statusCode, 400)
    assert.equal((await get(nextOf(aliceLink), asAlice)).statusCode, 200)
    const childLink = (await get(`/notes/${aliceNotes[0]}/comments?sort_by=body&limit=1`, asAlice)).headers.link
    const cursor = cursorOf(childLink)
    const other = await get(`/notes/${aliceNotes[1]}/comments?sort_by=body&limit=1&cursor=${cursor}`, asAlice)
    assert.equal(other.statusCode, 400)
    const same = await get(nextOf(childLink), asAlice)
    assert.deepEqual(same.json().map((c: { body: string }) => c.body), ['c2'])
  })
})
