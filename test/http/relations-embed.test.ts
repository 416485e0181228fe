import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed } from 'fastify-mongo-crud'
import { filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import {
  ABSENT_ID,
  expectBodyValidationError,
  expectDetail,
  expectDetailMentioning,
  expectEntryAt,
  OBJECT_ID,
} from '../harness/expect.ts'
import { Address, Attachment, buildRelationsApp, Person, Phone } from '../harness/relations.ts'
import { createDoc, getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore, type StoreMode } from '../harness/stores.ts'

const addresses = new CRUDEmbed({ model: Address, embedName: 'addresses' })
const phones = new CRUDEmbed({ model: Phone, embedName: 'phones' })

function buildEmbedApp(mode: StoreMode): Promise<TestApp> {
  return buildRelationsApp(mode, {}, {
    model: Person,
    collectionName: 'people',
    prefix: '/people',
    embeds: [addresses, phones],
  })
}

const streets = (items: Json[]) => items.map((item) => item.street)

describeEachStore('embed routes: GET and POST <prefix>/{id}/<embedName>', (mode) => {
  let t: TestApp
  let ann: Json
  before(async () => {
    t = await buildEmbedApp(mode)
    ann = await createDoc(t.app, '/people', { name: 'ann' })
    await seedDocs(t.app, `/people/${ann.id}/addresses`, [
      { street: 's1', city: 'Rome' },
      { street: 's2', city: 'Oslo', zip: '0150' },
      { street: 's3', city: 'Rome' },
      { street: 's4', city: 'Lima' },
    ])
  })
  after(() => t.close())

  const list = (params: Record<string, string | number> = {}) =>
    t.app.inject({ method: 'GET', url: `/people/${ann.id}/addresses${queryString(params)}` })

  it('POST answers 201 with the item and a server-generated 24-hex id', async () => {
    const bea = await createDoc(t.app, '/people', { name: 'bea' })
    const res = await t.app.inject({
      method: 'POST',
      url: `/people/${bea.id}/addresses`,
      payload: { street: 'Via Roma 1', city: 'Turin' },
    })
    assert.equal(res.statusCode, 201, res.body)
    const item = res.json()
    assert.match(item.id, OBJECT_ID)
    assert.deepEqual(item, { id: item.id, street: 'Via Roma 1', city: 'Turin' })
    assert.deepEqual(await getJson(t.app, `/people/${bea.id}/addresses`), [item])
    assert.deepEqual(await getJson(t.app, `/people/${bea.id}/addresses/${item.id}`), item)
  })

  it('gives every item its own id', async () => {
    const items = await getJson(t.app, `/people/${ann.id}/addresses`)
    assert.equal(new Set(items.map((item: Json) => item.id)).size, 4)
  })

  it('lists the items in insertion order', async () => {
    assert.deepEqual(streets(await getJson(t.app, `/people/${ann.id}/addresses`)), ['s1', 's2', 's3', 's4'])
  })

  it('keeps a client-supplied valid id, and refuses it a second time (422 Document not created)', async () => {
    const cid = await createDoc(t.app, '/people', { name: 'cid' })
    const id = 'aaaaaaaaaaaaaaaaaaaaaaaa'
    const url = `/people/${cid.id}/addresses`
    const first = await t.app.inject({ method: 'POST', url, payload: { id, street: 'x', city: 'y' } })
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().id, id)
    expectDetail(
      await t.app.inject({ method: 'POST', url, payload: { id, street: 'dup', city: 'y' } }),
      422,
      'Document not created',
    )
    assert.deepEqual(streets(await getJson(t.app, url)), ['x'])
  })

  it('sorts items with sort_by and order_by / sort_dir', async () => {
    assert.deepEqual(streets(await getJson(t.app, `/people/${ann.id}/addresses?sort_by=city`)), ['s4', 's2', 's1', 's3'])
    const desc = await getJson(t.app, `/people/${ann.id}/addresses${queryString({ sort_by: 'street', order_by: 'DESC' })}`)
    assert.deepEqual(streets(desc), ['s4', 's3', 's2', 's1'])
    const dir = await getJson(t.app, `/people/${ann.id}/addresses${queryString({ sort_by: 'street', sort_dir: -1 })}`)
    assert.deepEqual(streets(dir), ['s4', 's3', 's2', 's1'])
  })

  it('pages items with skip and limit', async () => {
    const url = `/people/${ann.id}/addresses${queryString({ sort_by: 'street', skip: 1, limit: 2 })}`
    assert.deepEqual(streets(await getJson(t.app, url)), ['s2', 's3'])
  })

  it('filters items', async () => {
    const url = `/people/${ann.id}/addresses${filtersQuery({ city: 'Rome' })}`
    assert.deepEqual(streets(await getJson(t.app, url)), ['s1', 's3'])
    const zip = `/people/${ann.id}/addresses${filtersQuery({ zip: { $in: ['0150'] } })}`
    assert.deepEqual(streets(await getJson(t.app, zip)), ['s2'])
  })

  it('answers the main list 422 texts for bad query parameters', async () => {
    expectDetail(await list({ sort_by: 'city', order_by: 'UP' }), 422, 'order_by must be either ASC or DESC')
    expectDetail(await list({ sort_by: 'city', sort_dir: 3 }), 422, 'sort_dir must be either 1 or -1')
    expectDetail(await list({ sort_by: 'city', order_by: 'DESC', sort_dir: 1 }), 422, 'order_by and sort_dir disagree')
    expectDetail(await list({ filters: '{"city":' }), 422, 'Invalid JSON in filters parameter')
    expectDetail(await list({ filters: '"Rome"' }), 422, 'filters must be a JSON object')
    assert.equal((await list({ limit: 0 })).statusCode, 422)
  })

  it('POST refuses a body missing a required field or with unknown keys (422), and adds nothing', async () => {
    const url = `/people/${ann.id}/addresses`
    expectEntryAt(expectBodyValidationError(await t.app.inject({ method: 'POST', url, payload: { city: 'x' } })), [
      'body',
      'street',
    ])
    expectBodyValidationError(
      await t.app.inject({ method: 'POST', url, payload: { street: 'x', city: 'y', floor: 2 } }),
    )
    assert.deepEqual(streets(await getJson(t.app, url)), ['s1', 's2', 's3', 's4'])
  })

  it('keeps two embeds of one router apart', async () => {
    const dee = await createDoc(t.app, '/people', { name: 'dee' })
    const address = await createDoc(t.app, `/people/${dee.id}/addresses`, { street: 'a', city: 'b' })
    const phone = await createDoc(t.app, `/people/${dee.id}/phones`, { number: '+39 06 1234', kind: 'home' })
    assert.deepEqual(await getJson(t.app, `/people/${dee.id}/addresses`), [address])
    assert.deepEqual(await getJson(t.app, `/people/${dee.id}/phones`), [phone])
    // an address id is not a phone
    expectDetail(await t.app.inject({ method: 'GET', url: `/people/${dee.id}/phones/${address.id}` }), 400, 'Document not found')
    expectDetail(await t.app.inject({ method: 'DELETE', url: `/people/${dee.id}/phones/${address.id}` }), 422, 'Document not deleted')
    const removed = await t.app.inject({ method: 'DELETE', url: `/people/${dee.id}/phones/${phone.id}` })
    assert.equal(removed.statusCode, 204, removed.body)
    assert.deepEqual(await getJson(t.app, `/people/${dee.id}/phones`), [])
    assert.deepEqual(await getJson(t.app, `/people/${dee.id}/addresses`), [address])
  })

  it('loses nothing under 50 concurrent POSTs (atomic pushes)', async () => {
    const eve = await createDoc(t.app, '/people', { name: 'eve' })
    const names = Array.from({ length: 50 }, (_, i) => `st${String(i).padStart(2, '0')}`)
    const answers = await Promise.all(
      names.map((street) =>
        t.app.inject({ method: 'POST', url: `/people/${eve.id}/addresses`, payload: { street, city: 'c' } }),
      ),
    )
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      names.map(() => 201),
    )
    const items = await getJson(t.app, `/people/${eve.id}/addresses${queryString({ sort_by: 'street' })}`)
    assert.deepEqual(streets(items), names)
    assert.equal(new Set(items.map((item: Json) => item.id)).size, 50)
  })
})

describeEachStore('embed routes: one item under <prefix>/{id}/<embedName>/{embed_id}', (mode) => {
  let t: TestApp
  let ann: Json
  before(async () => {
    t = await buildEmbedApp(mode)
    ann = await createDoc(t.app, '/people', { name: 'ann', city: 'Rome' })
  })
  after(() => t.close())

  const listUrl = () => `/people/${ann.id}/addresses`
  const add = (body: Record<string, unknown>) => createDoc(t.app, listUrl(), body)
  const itemUrl = (id: string) => `${listUrl()}/${id}`
  const items = () => getJson(t.app, listUrl())

  it('GET answers 200 with the item', async () => {
    const item = await add({ street: 'get', city: 'Rome', zip: '00100' })
    assert.deepEqual(await getJson(t.app, itemUrl(item.id)), { id: item.id, street: 'get', city: 'Rome', zip: '00100' })
  })

  for (const [label, id] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`answers GET 400 / PATCH 422 / DELETE 422 for ${label} item id, changing nothing`, async () => {
      const before = await items()
      expectDetail(await t.app.inject({ method: 'GET', url: itemUrl(id) }), 400, 'Document not found')
      expectDetail(
        await t.app.inject({ method: 'PATCH', url: itemUrl(id), payload: { city: 'x' } }),
        422,
        'Document not updated',
      )
      expectDetail(await t.app.inject({ method: 'DELETE', url: itemUrl(id) }), 422, 'Document not deleted')
      assert.deepEqual(await items(), before)
    })
  }

  it('PATCH merges into the item: other fields and other items are unchanged', async () => {
    const item = await add({ street: 'patch', city: 'Rome', zip: '1' })
    const other = await add({ street: 'other', city: 'Oslo' })
    const res = await t.app.inject({ method: 'PATCH', url: itemUrl(item.id), payload: { city: 'Milan' } })
    assert.equal(res.statusCode, 200, res.body)
    const expected = { id: item.id, street: 'patch', city: 'Milan', zip: '1' }
    assert.deepEqual(res.json(), expected)
    assert.deepEqual(await getJson(t.app, itemUrl(item.id)), expected)
    assert.deepEqual(await getJson(t.app, itemUrl(other.id)), other)
  })

  it('PATCH refuses unknown keys and wrong types (422), changing nothing', async () => {
    const item = await add({ street: 'strict', city: 'Rome' })
    expectBodyValidationError(await t.app.inject({ method: 'PATCH', url: itemUrl(item.id), payload: { floor: 2 } }))
    expectEntryAt(
      expectBodyValidationError(await t.app.inject({ method: 'PATCH', url: itemUrl(item.id), payload: { city: 5 } })),
      ['body', 'city'],
    )
    assert.deepEqual(await getJson(t.app, itemUrl(item.id)), item)
  })

  it('PATCH refuses a body id differing from the path item id (422), changing nothing', async () => {
    const item = await add({ street: 'id', city: 'Rome' })
    const res = await t.app.inject({ method: 'PATCH', url: itemUrl(item.id), payload: { id: ABSENT_ID, city: 'x' } })
    assert.equal(res.statusCode, 422, res.body)
    assert.ok(res.json().detail !== undefined, res.body)
    assert.deepEqual(await getJson(t.app, itemUrl(item.id)), item)
  })

  it('DELETE answers 204 with an empty body and removes only that item', async () => {
    const item = await add({ street: 'delete', city: 'Rome' })
    const before = await items()
    const res = await t.app.inject({ method: 'DELETE', url: itemUrl(item.id) })
    assert.equal(res.statusCode, 204, res.body)
    assert.equal(res.body, '')
    assert.deepEqual(
      await items(),
      before.filter((other: Json) => other.id !== item.id),
    )
    expectDetail(await t.app.inject({ method: 'GET', url: itemUrl(item.id) }), 400, 'Document not found')
    expectDetail(await t.app.inject({ method: 'DELETE', url: itemUrl(item.id) }), 422, 'Document not deleted')
  })

  it('has no PUT route for an item', async () => {
    const item = await add({ street: 'no-put', city: 'Rome' })
    const res = await t.app.inject({ method: 'PUT', url: itemUrl(item.id), payload: { street: 'x', city: 'y' } })
    assert.equal(res.statusCode, 404, res.body)
    assert.deepEqual(await getJson(t.app, itemUrl(item.id)), item)
  })

  it("PUT and PATCH of the parent keep its embedded items", async () => {
    const fay = await createDoc(t.app, '/people', { name: 'fay', city: 'Rome' })
    const address = await createDoc(t.app, `/people/${fay.id}/addresses`, { street: 'kept', city: 'Rome' })
    const phone = await createDoc(t.app, `/people/${fay.id}/phones`, { number: '1', kind: 'work' })
    const put = await t.app.inject({ method: 'PUT', url: `/people/${fay.id}`, payload: { name: 'fay2' } })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json(), { id: fay.id, name: 'fay2' })
    const patch = await t.app.inject({ method: 'PATCH', url: `/people/${fay.id}`, payload: { city: 'Oslo' } })
    assert.equal(patch.statusCode, 200, patch.body)
    assert.deepEqual(await getJson(t.app, `/people/${fay.id}/addresses`), [address])
    assert.deepEqual(await getJson(t.app, `/people/${fay.id}/phones`), [phone])
  })
})

describeEachStore('embed routes under a missing or invalid parent', (mode) => {
  let t: TestApp
  let ann: Json
  let item: Json
  before(async () => {
    t = await buildEmbedApp(mode)
    ann = await createDoc(t.app, '/people', { name: 'ann' })
    item = await createDoc(t.app, `/people/${ann.id}/addresses`, { street: 'kept', city: 'Rome' })
  })
  after(() => t.close())

  for (const [label, parentId] of [
    ['a missing', ABSENT_ID],
    ['an invalid', 'not-an-id'],
  ] as const) {
    it(`answers 400 'Document not found' on every embed route for ${label} parent, and writes nothing`, async () => {
      const requests = [
        { method: 'GET', url: `/people/${parentId}/addresses` },
        { method: 'POST', url: `/people/${parentId}/addresses`, payload: { street: 'x', city: 'y' } },
        { method: 'GET', url: `/people/${parentId}/addresses/${item.id}` },
        { method: 'PATCH', url: `/people/${parentId}/addresses/${item.id}`, payload: { city: 'x' } },
        { method: 'DELETE', url: `/people/${parentId}/addresses/${item.id}` },
      ] as const
      for (const request of requests) {
        const res = await t.app.inject(request)
        assert.equal(res.statusCode, 400, `${request.method} ${request.url}: ${res.body}`)
        expectDetail(res, 400, 'Document not found')
      }
      assert.deepEqual(await getJson(t.app, '/people'), [ann])
      assert.deepEqual(await getJson(t.app, `/people/${ann.id}/addresses`), [item])
    })
  }

  it("answers 400 on an item route when the item belongs to another parent's list", async () => {
    const bea = await createDoc(t.app, '/people', { name: 'bea' })
    expectDetail(await t.app.inject({ method: 'GET', url: `/people/${bea.id}/addresses/${item.id}` }), 400, 'Document not found')
    expectDetail(
      await t.app.inject({ method: 'PATCH', url: `/people/${bea.id}/addresses/${item.id}`, payload: { city: 'x' } }),
      422,
      'Document not updated',
    )
    expectDetail(
      await t.app.inject({ method: 'DELETE', url: `/people/${bea.id}/addresses/${item.id}` }),
      422,
      'Document not deleted',
    )
    assert.deepEqual(await getJson(t.app, `/people/${ann.id}/addresses`), [item])
  })
})

describeEachStore('embed routes and the 16 MB document limit', (mode) => {
  let t: TestApp
  const big = 'x'.repeat(6_000_000)
  before(async () => {
    t = await buildRelationsApp(mode, { fastify: { bodyLimit: 20 * 1024 * 1024 } }, {
      model: Person,
      collectionName: 'people',
      prefix: '/people',
      embeds: [new CRUDEmbed({ model: Attachment, embedName: 'attachments' })],
    })
  })
  after(() => t.close())

  it('answers 422 naming 16 MB for an item that would make the parent exceed it, and changes nothing', async () => {
    const ann = await createDoc(t.app, '/people', { name: 'ann' })
    const url = `/people/${ann.id}/attachments`
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ method: 'POST', url, payload: { data: big } })
      assert.equal(res.statusCode, 201, `attachment ${i} answered ${res.statusCode}`)
    }
    const before = (await getJson(t.app, url)).map((item: Json) => item.id)
    assert.equal(before.length, 2)
    const refused = await t.app.inject({ method: 'POST', url, payload: { data: big } })
    expectDetailMentioning(refused, 422, '16 MB')
    assert.deepEqual(
      (await getJson(t.app, url)).map((item: Json) => item.id),
      before,
    )
    assert.deepEqual(await getJson(t.app, `/people/${ann.id}`), ann)
  })
})
