import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * Check-then-insert races: two concurrent creates of the same identifier must not both win. The
 * unique index decides, so exactly one answers 201 and every other one 422 `Document not created`.
 */
describeEachStore('concurrent duplicate creates', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: User, collectionName: 'users', prefix: '/users', identifierField: 'email' },
      { model: User, collectionName: 'people', prefix: '/people' },
    )
  })
  after(() => t.close())

  async function race(url: string, count: number, body: (i: number) => Record<string, unknown>) {
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => t.app.inject({ method: 'POST', url, payload: body(i) })))
    const created = responses.filter((res) => res.statusCode === 201)
    assert.equal(created.length, 1, responses.map((res) => `${res.statusCode} ${res.body}`).join('\n'))
    for (const res of responses.filter((r) => r.statusCode !== 201)) expectDetail(res, 422, 'Document not created')
    return created[0]!.json()
  }

  it('creates exactly one of two concurrent creates with the same identifierField value', async () => {
    await race('/users', 2, (i) => ({ name: `twin${i}`, email: 'twin@x', password: 'pw' }))
    assert.equal((await getJson(t.app, `/users${filtersQuery({ email: 'twin@x' })}`)).length, 1)
  })

  it('creates exactly one of 25 concurrent creates with the same identifierField value', async () => {
    const winner = await race('/users', 25, (i) => ({ name: `crowd${i}`, email: 'crowd@x', password: 'pw' }))
    const stored = await getJson(t.app, `/users${filtersQuery({ email: 'crowd@x' })}`)
    assert.deepEqual(
      stored.map((doc: { name: string }) => doc.name),
      [winner.name],
    )
  })

  it('creates exactly one of 25 concurrent creates with the same client-chosen id', async () => {
    const id = 'abcdefabcdefabcdefabcdef'
    const winner = await race('/people', 25, (i) => ({ id, name: `dup${i}`, email: `dup${i}@x`, password: 'pw' }))
    assert.equal((await getJson(t.app, `/people/${id}`)).name, winner.name)
  })
})
