import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/** Sort fields of every type a model allows, with null and missing values among them. */
const Item = MongoModel('Item', {
  label: Type.String(),
  n: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  flag: Type.Optional(Type.Boolean()),
  ref: Type.Optional(Type.Union([ObjectIdField(), Type.Null()])),
  at: Type.Optional(Type.String({ format: 'date-time' })),
  group: Type.String(),
})

const REFS = ['65a000000000000000000003', '65a000000000000000000001', '65a000000000000000000002']

function itemAt(i: number): Record<string, unknown> {
  const item: Record<string, unknown> = { label: `l${(i * 7) % 5}`, group: i % 2 === 0 ? 'even' : 'odd' }
  // Repeated values, nulls and missing fields, so the _id tie-break and the null rule are exercised.
  if (i % 4 !== 0) item['n'] = i % 3 === 0 ? null : (i * 5) % 4
  if (i % 3 !== 0) item['flag'] = i % 2 === 0
  if (i % 5 !== 1) item['ref'] = i % 5 === 2 ? null : REFS[i % 3]
  if (i % 6 !== 0) item['at'] = new Date(Date.UTC(2024, 0, 1 + (i % 4))).toISOString()
  return item
}

const LINK = /^<([^>]+)>; rel="next"$/

describeEachStore('Page cursors: Link rel="next"', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items' })
    await seedDocs(t.app, '/items', Array.from({ length: 23 }, (_, i) => itemAt(i)))
  })
  after(() => t.close())

  /** Follows the Link headers from `url` to the end; every page but the last is full. */
  async function follow(url: string, limit: number): Promise<Json[]> {
    const seen: Json[] = []
    let next: string | undefined = url
    for (let pages = 0; next !== undefined; pages++) {
      assert.ok(pages < 50, 'the Link headers loop')
      const res: Awaited<ReturnType<typeof t.app.inject>> = await t.app.inject({ method: "GET", url: next })
      assert.equal(res.statusCode, 200, `${next}: ${res.body}`)
      const page = res.json()
      const link = res.headers.link as string | undefined
      next = link === undefined ? undefined : LINK.exec(link)?.[1]
      if (link !== undefined) assert.ok(next !== undefined, link)
      if (next !== undefined) assert.equal(page.length, limit)
      seen.push(...page)
    }
    return seen
  }

  for (const field of ['label', 'n', 'flag', 'ref', 'at', 'id']) {
    for (const direction of [1, -1]) {
      it(`sort_by=${field} sort_dir=${direction}: the pages together are the whole sorted list, once each`, async () => {
        const params = { sort_by: field, sort_dir: direction }
        const whole = await getJson(t.app, `/items${queryString(params)}`)
        const paged = await follow(`/items${queryString({ ...params, limit: 4 })}`, 4)
        assert.deepEqual(paged.map((doc) => doc.id), whole.map((doc: Json) => doc.id))
      })
    }
  }

  it('the cursor continues the same filter, and the Link keeps every other parameter', async () => {
    const params = { sort_by: 'n', limit: 3, fields: 'label' }
    const whole = await getJson(t.app, `/items${filtersQuery({ group: 'even' }, { sort_by: 'n' })}`)
    const paged = await follow(`/items${filtersQuery({ group: 'even' }, params)}`, 3)
    assert.deepEqual(paged.map((doc) => doc.id), whole.map((doc: Json) => doc.id))
    // fields= leaves the sort field out of the answer even though the cursor is made from it.
    assert.ok(paged.every((doc) => Object.keys(doc).sort().join() === 'id,label'))
  })

  it('no Link on the last page, even when it is full', async () => {
    const first = await t.app.inject({ method: 'GET', url: `/items${filtersQuery({ group: 'odd' }, { sort_by: 'label', limit: 11 })}` })
    assert.equal(first.json().length, 11)
    assert.equal(first.headers.link, undefined)
  })

  it('no Link on an unsorted page (there is no order to continue)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/items?limit=2' })
    assert.equal(res.headers.link, undefined)
  })

  it('cursor with skip is a 400', async () => {
    const link = (await t.app.inject({ method: 'GET', url: '/items?sort_by=label&limit=2' })).headers.link as string
    const res = await t.app.inject({ method: 'GET', url: `${LINK.exec(link)![1]}&skip=1` })
    assert.equal(res.statusCode, 400)
    assert.match(res.json().detail, /cursor and skip/)
  })

  it('a deep page by cursor is what skip gives', async () => {
    let url = '/items?sort_by=at&limit=2'
    for (let i = 0; i < 5; i++) url = LINK.exec((await t.app.inject({ method: 'GET', url })).headers.link as string)![1]!
    const byCursor = await getJson(t.app, url)
    const bySkip = await getJson(t.app, '/items?sort_by=at&limit=2&skip=10')
    assert.deepEqual(byCursor, bySkip)
  })

  it('the same page twice gets two different cursors (a nonce is never reused), both valid', async () => {
    const links = await Promise.all([1, 2, 3].map(async () => (await t.app.inject({ method: 'GET', url: '/items?sort_by=label&limit=2' })).headers.link as string))
    assert.equal(new Set(links).size, 3)
    const pages = await Promise.all(links.map(async (link) => (await t.app.inject({ method: 'GET', url: /<([^>]+)>/.exec(link)![1]! })).json()))
    assert.deepEqual(pages[1], pages[0])
    assert.deepEqual(pages[2], pages[0])
  })

  it('limit may change from one page to the next', async () => {
    const whole = await getJson(t.app, '/items?sort_by=label')
    const first = await t.app.inject({ method: 'GET', url: '/items?sort_by=label&limit=3' })
    const next = LINK.exec(String(first.headers.link))![1]!.replace('limit=3', 'limit=5')
    const second = await getJson(t.app, next)
    assert.deepEqual([...first.json(), ...second].map((doc: Json) => doc.id), whole.slice(0, 8).map((doc: Json) => doc.id))
  })

  it('OpenAPI shows the cursor parameter and the Link header', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const get = spec.paths['/items'].get
    assert.ok(get.parameters.some((p: { in: string, name: string }) => p.in === 'query' && p.name === 'cursor'))
    assert.ok(get.responses['200'].headers.Link)
  })
})

describeEachStore('cursorSecret', (mode) => {
  const secret = 'a secret shared by every instance, 32+ chars'
  let one: TestApp
  let two: TestApp
  before(async () => {
    one = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items', cursorSecret: secret })
    await seedDocs(one.app, '/items', Array.from({ length: 5 }, (_, i) => itemAt(i)))
    // Another instance of the same API: another app (on the same data), given the same secret.
    two = await buildApp({ name: mode.name, open: async () => ({ db: one.store.db, close: async () => {} }) }, {
      model: Item,
      collectionName: 'items',
      prefix: '/items',
      cursorSecret: Buffer.from(secret),
    })
  })
  after(async () => {
    await two.close()
    await one.close()
  })

  it('a cursor issued by one instance works on another with the same secret', async () => {
    const first = await one.app.inject({ method: 'GET', url: '/items?sort_by=label&limit=2' })
    const next = LINK.exec(String(first.headers.link))![1]!
    assert.deepEqual(await getJson(two.app, next), await getJson(one.app, next))
  })

  it('a secret shorter than 32 characters is refused at registration', async () => {
    await assert.rejects(
      buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items', cursorSecret: 'short' }),
      (error: Error & { code?: string }) => error.code === 'FMC_ERR_OPTIONS_INVALID' && /cursorSecret/.test(error.message),
    )
  })
})
