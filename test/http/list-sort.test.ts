import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { getJson, namesOf, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /users sorts', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    // inserted neither in name order nor in age order
    await seedDocs(
      t.app,
      '/users',
      [
        ['carol', 35],
        ['alice', 30],
        ['erin', 22],
        ['bob', 25],
        ['dave', 40],
      ].map(([name, age]) => ({ name, email: `${name}@example.com`, password: 'pw', age })),
    )
  })
  after(() => t.close())

  const list = async (params: Record<string, string | number>) =>
    namesOf(await getJson(t.app, `/users${queryString(params)}`))

  const byAgeAsc = ['erin', 'bob', 'alice', 'carol', 'dave']
  const byAgeDesc = [...byAgeAsc].reverse()

  it('sort_by alone sorts ascending', async () => {
    assert.deepEqual(await list({ sort_by: 'age' }), byAgeAsc)
  })

  it('sorts strings too', async () => {
    assert.deepEqual(await list({ sort_by: 'name' }), ['alice', 'bob', 'carol', 'dave', 'erin'])
  })

  it('order_by=ASC sorts ascending', async () => {
    assert.deepEqual(await list({ sort_by: 'age', order_by: 'ASC' }), byAgeAsc)
  })

  it('order_by=DESC sorts descending', async () => {
    assert.deepEqual(await list({ sort_by: 'age', order_by: 'DESC' }), byAgeDesc)
  })

  for (const value of ['desc', 'Desc', 'dEsC']) {
    it(`order_by is case-insensitive (${value})`, async () => {
      assert.deepEqual(await list({ sort_by: 'age', order_by: value }), byAgeDesc)
    })
  }

  it('order_by=asc (lower case) sorts ascending', async () => {
    assert.deepEqual(await list({ sort_by: 'age', order_by: 'asc' }), byAgeAsc)
  })

  it('sort_dir=1 sorts ascending', async () => {
    assert.deepEqual(await list({ sort_by: 'age', sort_dir: 1 }), byAgeAsc)
  })

  it('sort_dir=-1 sorts descending', async () => {
    assert.deepEqual(await list({ sort_by: 'age', sort_dir: -1 }), byAgeDesc)
  })

  it('order_by and sort_dir that agree are accepted', async () => {
    assert.deepEqual(await list({ sort_by: 'age', order_by: 'DESC', sort_dir: -1 }), byAgeDesc)
    assert.deepEqual(await list({ sort_by: 'age', order_by: 'asc', sort_dir: 1 }), byAgeAsc)
  })

  it('sorts by the id (creation order) with sort_by=id', async () => {
    assert.deepEqual(await list({ sort_by: 'id', sort_dir: -1 }), ['dave', 'bob', 'erin', 'alice', 'carol'])
  })
})
