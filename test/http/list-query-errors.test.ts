import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail, expectDetailMentioning } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { getJson, namesOf, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /users rejects bad query parameters', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    await seedDocs(t.app, '/users', [
      { name: 'alice', email: 'alice@example.com', password: 'pw', age: 30 },
      { name: 'bob', email: 'bob@example.com', password: 'pw', age: 25 },
    ])
  })
  after(() => t.close())

  const get = (params: Record<string, string | number>) =>
    t.app.inject({ method: 'GET', url: `/users${queryString(params)}` })

  it('answers 422 "order_by must be either ASC or DESC" for another order_by', async () => {
    expectDetail(await get({ sort_by: 'age', order_by: 'UP' }), 422, 'order_by must be either ASC or DESC')
  })

  it('validates order_by even without sort_by', async () => {
    expectDetail(await get({ order_by: 'sideways' }), 422, 'order_by must be either ASC or DESC')
  })

  it('rejects an empty order_by', async () => {
    expectDetail(await get({ sort_by: 'age', order_by: '' }), 422, 'order_by must be either ASC or DESC')
  })

  for (const value of ['2', '0', '-2']) {
    it(`answers 422 "sort_dir must be either 1 or -1" for sort_dir=${value}`, async () => {
      expectDetail(await get({ sort_by: 'age', sort_dir: value }), 422, 'sort_dir must be either 1 or -1')
    })
  }

  it('answers 422 naming sort_dir for a non-numeric sort_dir', async () => {
    expectDetailMentioning(await get({ sort_by: 'age', sort_dir: 'down' }), 422, 'sort_dir')
  })

  it('answers 422 "order_by and sort_dir disagree" when both are sent and disagree', async () => {
    expectDetail(await get({ sort_by: 'age', order_by: 'ASC', sort_dir: -1 }), 422, 'order_by and sort_dir disagree')
    expectDetail(await get({ sort_by: 'age', order_by: 'desc', sort_dir: 1 }), 422, 'order_by and sort_dir disagree')
  })

  for (const value of ['-1', '1.5', 'ten']) {
    it(`answers 422 naming skip for skip=${JSON.stringify(value)}`, async () => {
      expectDetailMentioning(await get({ skip: value }), 422, 'skip')
    })
  }

  for (const value of ['0', '-5', '2.5', 'all']) {
    it(`answers 422 naming limit for limit=${JSON.stringify(value)}`, async () => {
      expectDetailMentioning(await get({ limit: value }), 422, 'limit')
    })
  }

  for (const value of ['{bad', "{'name': 'alice'}", 'name=alice', '{"name":']) {
    it(`answers 422 "Invalid JSON in filters parameter" for filters=${JSON.stringify(value)}`, async () => {
      expectDetail(await get({ filters: value }), 422, 'Invalid JSON in filters parameter')
    })
  }

  for (const value of ['[]', '"x"', '123', 'null', 'true', '[{"name":"alice"}]']) {
    it(`answers 422 "filters must be a JSON object" for filters=${value}`, async () => {
      expectDetail(await get({ filters: value }), 422, 'filters must be a JSON object')
    })
  }

  it('ignores query parameters that name nothing (a field, or another API paging parameter, is a 400: guessed-parameters.test.ts)', async () => {
    const names = namesOf(await getJson(t.app, `/users${queryString({ foo: 'bar', _: 1700000000 })}`))
    assert.deepEqual(names.sort(), ['alice', 'bob'])
  })

  it('accepts skip=0 and limit=1, the smallest valid values', async () => {
    const docs = await getJson(t.app, `/users${queryString({ skip: 0, limit: 1, sort_by: 'name' })}`)
    assert.deepEqual(namesOf(docs), ['alice'])
  })
})
