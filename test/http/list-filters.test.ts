import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { getJson, type Json, namesOf, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /users filters', (mode) => {
  let t: TestApp
  const byName: Record<string, Json> = {}
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
    const people: [string, number, string][] = [
      ['alice', 30, 'Paris'],
      ['bob', 25, 'Paris'],
      ['carol', 35, 'Berlin'],
      ['dave', 40, 'Paris'],
      ['Alfred', 20, 'Berlin'],
    ]
    for (const doc of await seedDocs(
      t.app,
      '/users',
      people.map(([name, age, city]) => ({ name, email: `${name}@example.com`, password: 'pw', age, city })),
    )) {
      byName[doc.name] = doc
    }
    // alice manages bob and carol
    for (const name of ['bob', 'carol']) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/users/${byName[name].id}`,
        payload: { managerId: byName.alice.id },
      })
      assert.equal(res.statusCode, 200, res.body)
    }
  })
  after(() => t.close())

  const matching = async (filter: unknown, extra: Record<string, string | number> = {}) =>
    namesOf(await getJson(t.app, `/users${filtersQuery(filter, extra)}`)).sort()

  it('an empty object matches everything', async () => {
    assert.deepEqual(await matching({}), ['Alfred', 'alice', 'bob', 'carol', 'dave'])
  })

  it('equality as a plain field-value pair', async () => {
    assert.deepEqual(await matching({ name: 'carol' }), ['carol'])
  })

  it('equality that matches nothing returns an empty array', async () => {
    assert.deepEqual(await matching({ name: 'zed' }), [])
  })

  it('several keys combine with AND', async () => {
    assert.deepEqual(await matching({ city: 'Paris', age: { $gte: 30 } }), ['alice', 'dave'])
  })

  it('$gt', async () => {
    assert.deepEqual(await matching({ age: { $gt: 30 } }), ['carol', 'dave'])
  })

  it('$gte', async () => {
    assert.deepEqual(await matching({ age: { $gte: 30 } }), ['alice', 'carol', 'dave'])
  })

  it('$lt', async () => {
    assert.deepEqual(await matching({ age: { $lt: 30 } }), ['Alfred', 'bob'])
  })

  it('$lte', async () => {
    assert.deepEqual(await matching({ age: { $lte: 25 } }), ['Alfred', 'bob'])
  })

  it('two operators on one field form a range', async () => {
    assert.deepEqual(await matching({ age: { $gt: 20, $lt: 35 } }), ['alice', 'bob'])
  })

  it('$in', async () => {
    assert.deepEqual(await matching({ name: { $in: ['alice', 'dave', 'zed'] } }), ['alice', 'dave'])
  })

  it('$or', async () => {
    assert.deepEqual(await matching({ $or: [{ name: 'bob' }, { age: { $gte: 40 } }] }), ['bob', 'dave'])
  })

  it('$and', async () => {
    assert.deepEqual(await matching({ $and: [{ age: { $gt: 20 } }, { age: { $lt: 35 } }] }), ['alice', 'bob'])
  })

  it('$or nested in $and', async () => {
    const filter = { $and: [{ city: 'Paris' }, { $or: [{ name: 'bob' }, { age: { $gt: 35 } }] }] }
    assert.deepEqual(await matching(filter), ['bob', 'dave'])
  })

  it('$regex is case-sensitive without $options', async () => {
    assert.deepEqual(await matching({ name: { $regex: '^al' } }), ['alice'])
  })

  it('$regex with $options "i" is case-insensitive', async () => {
    assert.deepEqual(await matching({ name: { $regex: '^al', $options: 'i' } }), ['Alfred', 'alice'])
  })

  it('filters on id with a 24-hex string', async () => {
    assert.deepEqual(await matching({ id: byName.bob.id }), ['bob'])
  })

  it('filters on id with $in of 24-hex strings', async () => {
    assert.deepEqual(await matching({ id: { $in: [byName.bob.id, byName.dave.id] } }), ['bob', 'dave'])
  })

  it('filters on _id (the database name) with a 24-hex string', async () => {
    assert.deepEqual(await matching({ _id: byName.carol.id }), ['carol'])
  })

  it('filters on an ObjectIdField with a 24-hex string', async () => {
    assert.deepEqual(await matching({ managerId: byName.alice.id }), ['bob', 'carol'])
  })

  it('applies filter, then sort, then skip, then limit', async () => {
    const docs = await getJson(
      t.app,
      `/users${filtersQuery({ age: { $gte: 25 } }, { sort_by: 'age', order_by: 'DESC', skip: 1, limit: 2 })}`,
    )
    // matching, by age descending: dave 40, carol 35, alice 30, bob 25
    assert.deepEqual(namesOf(docs), ['carol', 'alice'])
  })
})
