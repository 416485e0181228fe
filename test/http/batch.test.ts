import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDLookup, HTTPException } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { Note, User, UserOut } from '../harness/models.ts'
import { Author, Message } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const alice = { name: 'alice', email: 'alice@example.com', password: 'pw' }
const messages = new CRUDLookup({ model: Message, collectionName: 'batch_messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })

describeEachStore('POST <prefix>/_batch', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, modelOut: UserOut, collectionName: 'batch_users', prefix: '/users', maxBatchOperations: 5 },
      { model: User, collectionName: 'batch_guarded', prefix: '/guarded', dependenciesDeleteOne: [() => { throw new HTTPException(403, 'No deletes here') }], disableReplaceOne: true },
      { model: Author, collectionName: 'batch_authors', prefix: '/authors', lookups: [messages] },
      { model: Note, collectionName: 'batch_notes', prefix: '/notes', filterDependency: (request) => ({ owner: String(request.headers['x-user']) }) },
    )
  })
  after(() => t.close())

  const batch = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, payload: payload as Json })
  const list = async (url: string) => (await t.app.inject({ method: 'GET', url })).json() as Json[]

  it('applies every operation in order and answers each result as its route would', async () => {
    const bob = await createDoc(t.app, '/users', { ...alice, name: 'bob' })
    const gone = await createDoc(t.app, '/users', { ...alice, name: 'gone' })
    const tag = (await t.app.inject({ method: 'GET', url: `/users/${bob.id}` })).headers.etag as string
    const res = await batch('/users/_batch', {
      operations: [
        { op: 'create', body: alice },
        { op: 'update', id: bob.id, body: { city: 'Rome' }, ifMatch: tag },
        { op: 'replace', id: bob.id, body: { ...alice, name: 'robert' } },
        { op: 'delete', id: gone.id },
      ],
    })
    assert.equal(res.statusCode, 200, res.body)
    const { results } = res.json()
    assert.deepEqual(results.map((r: Json) => r.status), [201, 200, 200, 204])
    // Bodies as GET one answers them (the output model hides password), with their ETags.
    assert.deepEqual(results[0].body, { id: results[0].body.id, name: 'alice', email: 'alice@example.com' })
    assert.deepEqual(results[2].body, { id: bob.id, name: 'robert', email: 'alice@example.com' })
    const now = await t.app.inject({ method: 'GET', url: `/users/${bob.id}` })
    assert.equal(now.headers.etag, results[2].etag)
    assert.equal((await t.app.inject({ method: 'GET', url: `/users/${gone.id}` })).statusCode, 400)
  })

  it('atomic: the first failure answers its own status with its index, and nothing of the batch is stored', async () => {
    const before = await list('/users')
    const res = await batch('/users/_batch', {
      operations: [
        { op: 'create', body: { ...alice, name: 'never' } },
        { op: 'create', body: { name: 'no email' } },
        { op: 'delete', id: 'ffffffffffffffffffffffff' },
      ],
    })
    assert.equal(res.statusCode, 422)
    const answer = res.json()
    assert.equal(answer.index, 1)
    assert.deepEqual(answer.detail.map((issue: Json) => issue.loc), [['body', 'email'], ['body', 'password']])
    assert.deepEqual(await list('/users'), before)
  })

  it('not atomic: every operation on its own, every result listed, failures included', async () => {
    const res = await batch('/users/_batch', {
      atomic: false,
      operations: [
        { op: 'create', body: { ...alice, name: 'kept' } },
        { op: 'update', id: 'ffffffffffffffffffffffff', body: { city: 'x' } },
        { op: 'update', id: 'ffffffffffffffffffffffff', body: {}, contentType: 'text/plain' },
      ],
    })
    assert.equal(res.statusCode, 200)
    const { results } = res.json()
    assert.deepEqual(results.map((r: Json) => r.status), [201, 422, 415])
    assert.equal(results[1].detail, 'Document not updated')
    assert.ok((await list('/users')).some((doc) => doc.name === 'kept'))
  })

  it("runs each operation's guards and disable* as its route would", async () => {
    const doc = await createDoc(t.app, '/guarded', alice)
    const res = await batch('/guarded/_batch', { atomic: false, operations: [{ op: 'delete', id: doc.id }, { op: 'replace', id: doc.id, body: alice }] })
    assert.deepEqual(res.json().results, [{ status: 403, detail: 'No deletes here' }, { status: 404, detail: 'This router has no replace route (it is disabled)' }])
    const atomic = await batch('/guarded/_batch', { operations: [{ op: 'update', id: doc.id, body: { city: 'x' } }, { op: 'delete', id: doc.id }] })
    assert.equal(atomic.statusCode, 403)
    assert.deepEqual(atomic.json(), { detail: 'No deletes here', index: 1 })
    assert.equal((await t.app.inject({ method: 'GET', url: `/guarded/${doc.id}` })).json().city, undefined)
  })

  it('refuses an empty batch and one over maxBatchOperations (422)', async () => {
    assert.equal((await batch('/users/_batch', { operations: [] })).statusCode, 422)
    const six = Array.from({ length: 6 }, () => ({ op: 'create', body: alice }))
    const res = await batch('/users/_batch', { operations: six })
    assert.equal(res.statusCode, 422)
    assert.match(JSON.stringify(res.json()), /operations/)
  })

  it("serves a lookup's children under their own route, through their parent", async () => {
    const author = await createDoc(t.app, '/authors', { name: 'ann' })
    const res = await batch(`/authors/${author.id}/messages/_batch`, { operations: [{ op: 'create', body: { text: 'a' } }, { op: 'create', body: { text: 'b' } }] })
    assert.equal(res.statusCode, 200, res.body)
    const { results } = res.json()
    assert.deepEqual(results.map((r: Json) => r.body.authorId), [author.id, author.id])
    const [first] = results
    const updated = await batch(`/authors/${author.id}/messages/_batch`, { operations: [{ op: 'update', id: first.body.id, body: { rank: 2 } }, { op: 'delete', id: results[1].body.id }] })
    assert.deepEqual(updated.json().results.map((r: Json) => r.status), [200, 204])
    assert.deepEqual((await list(`/authors/${author.id}/messages`)).map((m) => [m.text, m.rank]), [['a', 2]])
    const missing = await batch('/authors/ffffffffffffffffffffffff/messages/_batch', { operations: [{ op: 'create', body: { text: 'c' } }] })
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(missing.json(), { detail: 'Document not found', index: 0 })
  })

  it("runs each operation under the caller's scope: filled on create, refused (403) when the write would leave it", async () => {
    const ann = { 'x-user': 'ann' }
    const res = await t.app.inject({ method: 'POST', url: '/notes/_batch', headers: ann, payload: { operations: [{ op: 'create', body: { title: 'mine' } }] } })
    assert.equal(res.statusCode, 200, res.body)
    const [{ body: note }] = res.json().results
    assert.equal(note.owner, 'ann')
    const moved = await t.app.inject({ method: 'POST', url: '/notes/_batch', headers: ann, payload: { operations: [{ op: 'update', id: note.id, body: { title: 'x' } }, { op: 'update', id: note.id, body: { owner: 'bob' } }] } })
    assert.deepEqual([moved.statusCode, moved.json().index], [403, 1])
    const bob = { 'x-user': 'bob' }
    const stranger = await t.app.inject({ method: 'POST', url: '/notes/_batch', headers: bob, payload: { atomic: false, operations: [{ op: 'delete', id: note.id }] } })
    assert.deepEqual(stranger.json().results, [{ status: 422, detail: 'Document not deleted' }])
    assert.equal((await t.app.inject({ method: 'GET', url: `/notes/${note.id}`, headers: ann })).json().title, 'mine')
  })
})
