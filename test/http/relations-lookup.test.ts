import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDLookup } from 'fastify-mongo-crud'
import { filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { ABSENT_ID, expectBodyValidationError, expectDetail, expectEntryAt, OBJECT_ID } from '../harness/expect.ts'
import { Author, buildRelationsApp, Comment, Message } from '../harness/relations.ts'
import { createDoc, getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const messagesLookup = new CRUDLookup({
  model: Message,
  collectionName: 'messages',
  prefix: 'messages',
  localField: '_id',
  foreignField: 'authorId',
})

const commentsLookup = new CRUDLookup({
  model: Comment,
  collectionName: 'comments',
  prefix: 'comments',
  localField: '_id',
  foreignField: 'authorRef',
})

/** Builds an app with /authors (messages and comments as lookups) and unscoped /messages to look behind. */
async function buildLookupApp(mode: Parameters<typeof buildRelationsApp>[0]): Promise<TestApp> {
  return buildRelationsApp(
    mode,
    {},
    { model: Message, collectionName: 'messages', prefix: '/messages' },
    { model: Comment, collectionName: 'comments', prefix: '/comments' },
    { model: Author, collectionName: 'authors', prefix: '/authors', lookups: [messagesLookup, commentsLookup] },
  )
}

/** Every stored message, sorted by text: what the child routes must (not) have changed. */
async function allMessages(t: TestApp): Promise<Json[]> {
  return getJson(t.app, `/messages${queryString({ sort_by: 'text' })}`)
}

const texts = (docs: Json[]) => docs.map((doc) => doc.text)

describeEachStore('lookup child routes: GET and POST <prefix>/{id}/messages', (mode) => {
  let t: TestApp
  let ada: Json
  let bob: Json
  before(async () => {
    t = await buildLookupApp(mode)
    ada = await createDoc(t.app, '/authors', { name: 'ada' })
    bob = await createDoc(t.app, '/authors', { name: 'bob' })
    const base = (author: Json) => `/authors/${author.id}/messages`
    await seedDocs(t.app, base(ada), [
      { text: 'a1', rank: 3 },
      { text: 'a2', rank: 1 },
      { text: 'a3', rank: 2 },
      { text: 'a4', rank: 5 },
    ])
    await seedDocs(t.app, base(bob), [
      { text: 'b1', rank: 4 },
      { text: 'b2', rank: 2 },
    ])
  })
  after(() => t.close())

  const list = (author: Json, params: Record<string, string | number> = {}) =>
    t.app.inject({ method: 'GET', url: `/authors/${author.id}/messages${queryString(params)}` })

  it("lists only that parent's children, as a JSON array", async () => {
    const adas = await getJson(t.app, `/authors/${ada.id}/messages`)
    assert.deepEqual(texts(adas).sort(), ['a1', 'a2', 'a3', 'a4'])
    assert.ok(adas.every((doc: Json) => doc.authorId === ada.id && OBJECT_ID.test(doc.id)))
    assert.deepEqual(texts(await getJson(t.app, `/authors/${bob.id}/messages`)).sort(), ['b1', 'b2'])
  })

  it('lists [] for a parent without children', async () => {
    const carl = await createDoc(t.app, '/authors', { name: 'carl' })
    assert.deepEqual(await getJson(t.app, `/authors/${carl.id}/messages`), [])
  })

  it('sorts the children with sort_by and order_by / sort_dir', async () => {
    const asc = await getJson(t.app, `/authors/${ada.id}/messages${queryString({ sort_by: 'rank' })}`)
    assert.deepEqual(texts(asc), ['a2', 'a3', 'a1', 'a4'])
    const desc = await getJson(t.app, `/authors/${ada.id}/messages${queryString({ sort_by: 'rank', order_by: 'DESC' })}`)
    assert.deepEqual(texts(desc), ['a4', 'a1', 'a3', 'a2'])
    const dir = await getJson(t.app, `/authors/${ada.id}/messages${queryString({ sort_by: 'rank', sort_dir: -1 })}`)
    assert.deepEqual(texts(dir), ['a4', 'a1', 'a3', 'a2'])
  })

  it('pages the children with skip and limit', async () => {
    const url = `/authors/${ada.id}/messages${queryString({ sort_by: 'text', skip: 1, limit: 2 })}`
    assert.deepEqual(texts(await getJson(t.app, url)), ['a2', 'a3'])
  })

  it('filters the children', async () => {
    const url = `/authors/${ada.id}/messages${filtersQuery({ rank: { $gte: 2 } }, { sort_by: 'text' })}`
    assert.deepEqual(texts(await getJson(t.app, url)), ['a1', 'a3', 'a4'])
  })

  it('never widens the list to another parent through filters', async () => {
    const url = `/authors/${ada.id}/messages${filtersQuery({ authorId: bob.id })}`
    assert.deepEqual(await getJson(t.app, url), [])
    const orUrl = `/authors/${ada.id}/messages${filtersQuery({ $or: [{ authorId: bob.id }, { text: 'b1' }] })}`
    assert.deepEqual(await getJson(t.app, orUrl), [])
  })

  it('answers the main list 422 texts for bad query parameters', async () => {
    expectDetail(await list(ada, { sort_by: 'rank', order_by: 'UP' }), 422, 'order_by must be either ASC or DESC')
    expectDetail(await list(ada, { sort_by: 'rank', sort_dir: 2 }), 422, 'sort_dir must be either 1 or -1')
    expectDetail(await list(ada, { sort_by: 'rank', order_by: 'ASC', sort_dir: -1 }), 422, 'order_by and sort_dir disagree')
    expectDetail(await list(ada, { filters: '{bad' }), 422, 'Invalid JSON in filters parameter')
    expectDetail(await list(ada, { filters: '[1]' }), 422, 'filters must be a JSON object')
    assert.equal((await list(ada, { limit: 0 })).statusCode, 422)
    assert.equal((await list(ada, { skip: -1 })).statusCode, 422)
  })

  it('POST answers 201 with the child, its foreign field set from the path (the body may omit it)', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/authors/${ada.id}/messages`, payload: { text: 'new', rank: 9 } })
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json()
    assert.match(created.id, OBJECT_ID)
    assert.deepEqual(created, { id: created.id, text: 'new', rank: 9, authorId: ada.id })
    assert.deepEqual(await getJson(t.app, `/messages/${created.id}`), created)
    assert.deepEqual(await getJson(t.app, `/authors/${ada.id}/messages/${created.id}`), created)
  })

  it('POST accepts a body that names the same parent', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/authors/${bob.id}/messages`,
      payload: { text: 'same-parent', authorId: bob.id },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().authorId, bob.id)
  })

  it('POST refuses a body naming another parent (422 at body.authorId), and creates nothing', async () => {
    const before = await allMessages(t)
    const res = await t.app.inject({
      method: 'POST',
      url: `/authors/${ada.id}/messages`,
      payload: { text: 'hijack', authorId: bob.id },
    })
    const entries = expectBodyValidationError(res)
    assert.deepEqual(entries[0]?.loc, ['body', 'authorId'])
    assert.deepEqual(await allMessages(t), before)
  })

  it('POST refuses unknown keys and missing required fields (422), and creates nothing', async () => {
    const before = await allMessages(t)
    const url = `/authors/${ada.id}/messages`
    expectBodyValidationError(await t.app.inject({ method: 'POST', url, payload: { text: 'x', extra: 1 } }))
    expectEntryAt(expectBodyValidationError(await t.app.inject({ method: 'POST', url, payload: { rank: 1 } })), ['body', 'text'])
    assert.deepEqual(await allMessages(t), before)
  })

  it('loses nothing under 30 concurrent creates', async () => {
    const dan = await createDoc(t.app, '/authors', { name: 'dan' })
    const names = Array.from({ length: 30 }, (_, i) => `c${String(i).padStart(2, '0')}`)
    const answers = await Promise.all(
      names.map((text) => t.app.inject({ method: 'POST', url: `/authors/${dan.id}/messages`, payload: { text } })),
    )
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      names.map(() => 201),
    )
    assert.equal(new Set(answers.map((res) => res.json().id)).size, 30)
    assert.deepEqual(texts(await getJson(t.app, `/authors/${dan.id}/messages${queryString({ sort_by: 'text' })}`)), names)
  })
})

describeEachStore('lookup child routes: one child under <prefix>/{id}/messages/{child_id}', (mode) => {
  let t: TestApp
  let ada: Json
  let bob: Json
  before(async () => {
    t = await buildLookupApp(mode)
    ada = await createDoc(t.app, '/authors', { name: 'ada' })
    bob = await createDoc(t.app, '/authors', { name: 'bob' })
  })
  after(() => t.close())

  const child = (author: Json, body: Record<string, unknown>) => createDoc(t.app, `/authors/${author.id}/messages`, body)
  const oneUrl = (author: Json, id: string) => `/authors/${author.id}/messages/${id}`

  it('GET answers 200 with the child', async () => {
    const msg = await child(ada, { text: 'hello', rank: 1 })
    assert.deepEqual(await getJson(t.app, oneUrl(ada, msg.id)), { id: msg.id, text: 'hello', rank: 1, authorId: ada.id })
  })

  it("GET answers 400 'Document not found' for another parent's child", async () => {
    const msg = await child(bob, { text: 'bobs' })
    expectDetail(await t.app.inject({ method: 'GET', url: oneUrl(ada, msg.id) }), 400, 'Document not found')
  })

  for (const [label, id] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`GET answers 400 'Document not found' for ${label} child id`, async () => {
      expectDetail(await t.app.inject({ method: 'GET', url: oneUrl(ada, id) }), 400, 'Document not found')
    })
  }

  it('PUT replaces the child, keeping its id and parent (the body may omit the foreign field)', async () => {
    const msg = await child(ada, { text: 'old', rank: 1 })
    const res = await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { text: 'new' } })
    assert.equal(res.statusCode, 200, res.body)
    const expected = { id: msg.id, text: 'new', authorId: ada.id }
    assert.deepEqual(res.json(), expected)
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), expected)
  })

  it('PUT accepts a body id equal to the path child id', async () => {
    const msg = await child(ada, { text: 'same-id' })
    const res = await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { id: msg.id, text: 'same-id-2' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: msg.id, text: 'same-id-2', authorId: ada.id })
  })

  it("PUT answers 422 'Document not replaced' for another parent's child, and changes nothing", async () => {
    const msg = await child(bob, { text: 'bobs-put' })
    const res = await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { text: 'stolen' } })
    expectDetail(res, 422, 'Document not replaced')
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  for (const [label, id] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`PUT answers 422 'Document not replaced' for ${label} child id, and creates nothing`, async () => {
      const before = await allMessages(t)
      expectDetail(
        await t.app.inject({ method: 'PUT', url: oneUrl(ada, id), payload: { text: 'ghost' } }),
        422,
        'Document not replaced',
      )
      assert.deepEqual(await allMessages(t), before)
    })
  }

  it('PUT refuses a body naming another parent (422 at body.authorId), and changes nothing', async () => {
    const msg = await child(ada, { text: 'moving' })
    const res = await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { text: 'moved', authorId: bob.id } })
    assert.deepEqual(expectBodyValidationError(res)[0]?.loc, ['body', 'authorId'])
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  it('PUT refuses a body id differing from the path child id (422), and changes nothing', async () => {
    const msg = await child(ada, { text: 'id-put' })
    const other = await child(ada, { text: 'id-put-other' })
    const res = await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { id: other.id, text: 'x' } })
    assert.equal(res.statusCode, 422, res.body)
    assert.ok(res.json().detail !== undefined, res.body)
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
    assert.deepEqual(await getJson(t.app, `/messages/${other.id}`), other)
  })

  it('PUT refuses unknown keys (422), and changes nothing', async () => {
    const msg = await child(ada, { text: 'unknown-put' })
    expectBodyValidationError(await t.app.inject({ method: 'PUT', url: oneUrl(ada, msg.id), payload: { text: 'x', extra: 1 } }))
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  it('PATCH changes only the fields sent', async () => {
    const msg = await child(ada, { text: 'patch-me', rank: 7 })
    const res = await t.app.inject({ method: 'PATCH', url: oneUrl(ada, msg.id), payload: { text: 'patched' } })
    assert.equal(res.statusCode, 200, res.body)
    const expected = { id: msg.id, text: 'patched', rank: 7, authorId: ada.id }
    assert.deepEqual(res.json(), expected)
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), expected)
  })

  it("PATCH answers 422 'Document not updated' for another parent's child, and changes nothing", async () => {
    const msg = await child(bob, { text: 'bobs-patch' })
    expectDetail(
      await t.app.inject({ method: 'PATCH', url: oneUrl(ada, msg.id), payload: { text: 'stolen' } }),
      422,
      'Document not updated',
    )
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  for (const [label, id] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`PATCH answers 422 'Document not updated' for ${label} child id`, async () => {
      expectDetail(
        await t.app.inject({ method: 'PATCH', url: oneUrl(ada, id), payload: { text: 'ghost' } }),
        422,
        'Document not updated',
      )
    })
  }

  it('PATCH refuses moving the child to another parent (422 at body.authorId), and changes nothing', async () => {
    const msg = await child(ada, { text: 'stay' })
    const res = await t.app.inject({ method: 'PATCH', url: oneUrl(ada, msg.id), payload: { authorId: bob.id } })
    assert.deepEqual(expectBodyValidationError(res)[0]?.loc, ['body', 'authorId'])
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  it('PATCH refuses a body id differing from the path child id, and unknown keys (422), changing nothing', async () => {
    const msg = await child(ada, { text: 'id-patch' })
    const res = await t.app.inject({ method: 'PATCH', url: oneUrl(ada, msg.id), payload: { id: ABSENT_ID, text: 'x' } })
    assert.equal(res.statusCode, 422, res.body)
    expectBodyValidationError(await t.app.inject({ method: 'PATCH', url: oneUrl(ada, msg.id), payload: { extra: 1 } }))
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  it('DELETE answers 204 with an empty body and removes the child', async () => {
    const msg = await child(ada, { text: 'bye' })
    const res = await t.app.inject({ method: 'DELETE', url: oneUrl(ada, msg.id) })
    assert.equal(res.statusCode, 204, res.body)
    assert.equal(res.body, '')
    expectDetail(await t.app.inject({ method: 'GET', url: `/messages/${msg.id}` }), 400, 'Document not found')
    expectDetail(await t.app.inject({ method: 'DELETE', url: oneUrl(ada, msg.id) }), 422, 'Document not deleted')
  })

  it("DELETE answers 422 'Document not deleted' for another parent's child, which stays", async () => {
    const msg = await child(bob, { text: 'bobs-delete' })
    expectDetail(await t.app.inject({ method: 'DELETE', url: oneUrl(ada, msg.id) }), 422, 'Document not deleted')
    assert.deepEqual(await getJson(t.app, `/messages/${msg.id}`), msg)
  })

  for (const [label, id] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`DELETE answers 422 'Document not deleted' for ${label} child id`, async () => {
      expectDetail(await t.app.inject({ method: 'DELETE', url: oneUrl(ada, id) }), 422, 'Document not deleted')
    })
  }
})

describeEachStore('lookup child routes under a missing or invalid parent', (mode) => {
  let t: TestApp
  let msg: Json
  before(async () => {
    t = await buildLookupApp(mode)
    const ada = await createDoc(t.app, '/authors', { name: 'ada' })
    msg = await createDoc(t.app, `/authors/${ada.id}/messages`, { text: 'kept', rank: 1 })
  })
  after(() => t.close())

  for (const [label, parentId] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    const requests = (childId: string) =>
      [
        { method: 'GET', url: `/authors/${parentId}/messages` },
        { method: 'POST', url: `/authors/${parentId}/messages`, payload: { text: 'orphan' } },
        { method: 'GET', url: `/authors/${parentId}/messages/${childId}` },
        { method: 'PUT', url: `/authors/${parentId}/messages/${childId}`, payload: { text: 'orphan' } },
        { method: 'PATCH', url: `/authors/${parentId}/messages/${childId}`, payload: { text: 'orphan' } },
        { method: 'DELETE', url: `/authors/${parentId}/messages/${childId}` },
      ] as const

    it(`answers 400 'Document not found' on every child route for ${label} parent, and writes nothing`, async () => {
      for (const request of requests(msg.id)) {
        const res = await t.app.inject(request)
        assert.equal(res.statusCode, 400, `${request.method} ${request.url}: ${res.body}`)
        expectDetail(res, 400, 'Document not found')
      }
      assert.deepEqual(await allMessages(t), [msg])
    })
  }
})

describeEachStore('lookup on a plain string foreign field', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildLookupApp(mode)
  })
  after(() => t.close())

  it("creates children with the parent's id as the foreign value, and lists only them", async () => {
    const ada = await createDoc(t.app, '/authors', { name: 'ada' })
    const bob = await createDoc(t.app, '/authors', { name: 'bob' })
    const c1 = await createDoc(t.app, `/authors/${ada.id}/comments`, { body: 'first' })
    await createDoc(t.app, `/authors/${bob.id}/comments`, { body: 'other' })
    assert.deepEqual(c1, { id: c1.id, body: 'first', authorRef: ada.id })
    assert.deepEqual(await getJson(t.app, `/authors/${ada.id}/comments`), [c1])
    assert.deepEqual(await getJson(t.app, `/comments/${c1.id}`), c1)
    expectDetail(await t.app.inject({ method: 'GET', url: `/authors/${bob.id}/comments/${c1.id}` }), 400, 'Document not found')
  })
})
