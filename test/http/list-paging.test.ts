import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { getJson, namesOf, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const pad = (n: number) => String(n).padStart(2, '0')

describeEachStore('GET /users pages with skip and limit', (mode) => {
  let t: TestApp
  const all = Array.from({ length: 25 }, (_, i) => `u${pad(i)}`)
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    await seedDocs(
      t.app,
      '/users',
      all.map((name, i) => ({ name, email: `${name}@example.com`, password: 'pw', age: i })),
    )
  })
  after(() => t.close())

  const page = (params: Record<string, string | number>) =>
    getJson(t.app, `/users${queryString({ sort_by: 'age', ...params })}`).then(namesOf)

  it('answers 200 with a JSON array of every document when no paging is asked', async () => {
    const docs = await getJson(t.app, '/users')
    assert.ok(Array.isArray(docs))
    assert.deepEqual(namesOf(docs).sort(), all)
  })

  it('skip=0&limit=10 returns the first ten documents', async () => {
    assert.deepEqual(await page({ skip: 0, limit: 10 }), all.slice(0, 10))
  })

  it('skip=10&limit=10 returns the next ten', async () => {
    assert.deepEqual(await page({ skip: 10, limit: 10 }), all.slice(10, 20))
  })

  it('the last page holds what is left', async () => {
    assert.deepEqual(await page({ skip: 20, limit: 10 }), all.slice(20))
  })

  it('a skip past the end returns an empty array', async () => {
    assert.deepEqual(await page({ skip: 100, limit: 10 }), [])
  })

  it('limit alone returns the first documents', async () => {
    assert.deepEqual(await page({ limit: 3 }), all.slice(0, 3))
  })

  it('skip alone returns the rest', async () => {
    assert.deepEqual(await page({ skip: 22 }), all.slice(22))
  })

  it('pages without sort_by are disjoint and together cover every document', async () => {
    const pages = await Promise.all(
      [0, 10, 20].map((skip) => getJson(t.app, `/users${queryString({ skip, limit: 10 })}`).then(namesOf)),
    )
    assert.deepEqual(
      pages.map((names) => names.length),
      [10, 10, 5],
    )
    assert.deepEqual(pages.flat().sort(), all)
  })
})
