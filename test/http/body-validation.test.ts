import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError, expectEntryAt } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('POST /users validates the body', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users' })
  })
  after(() => t.close())

  async function assertNothingWritten(): Promise<void> {
    assert.deepEqual(await getJson(t.app, '/users'), [])
  }

  it('answers 422 for malformed JSON, and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x", "email": ',
    })
    expectBodyValidationError(res)
    await assertNothingWritten()
  })

  it('answers 422 when there is no body at all, and writes nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/users' })
    expectBodyValidationError(res)
    await assertNothingWritten()
  })

  it('answers 422 for a body that is not an object, and writes nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/users', payload: [{ name: 'x' }] })
    expectBodyValidationError(res)
    await assertNothingWritten()
  })

  it('answers 422 at ["body","email"] for a missing required field, and writes nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/users', payload: { name: 'x', password: 'pw' } })
    expectEntryAt(expectBodyValidationError(res), ['body', 'email'])
    await assertNothingWritten()
  })

  it('answers 422 at ["body","age"] for a wrong type, and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'x', email: 'x@example.com', password: 'pw', age: 'old' },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'age'])
    await assertNothingWritten()
  })

  it('answers 422 at ["body","name"] for a number where a string is declared (no coercion)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 42, email: 'x@example.com', password: 'pw' },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'name'])
    await assertNothingWritten()
  })

  it('answers 422 at ["body","age"] for a non-integer where an integer is declared', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'x', email: 'x@example.com', password: 'pw', age: 1.5 },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'age'])
    await assertNothingWritten()
  })

  it('answers 422 naming the key for an unknown key (rejected, not dropped), and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'x', email: 'x@example.com', password: 'pw', isAdmin: true },
    })
    const entries = expectBodyValidationError(res)
    assert.ok(JSON.stringify(entries).includes('isAdmin'), `the unknown key is not named: ${res.body}`)
    await assertNothingWritten()
  })

  it('answers 422 at ["body","id"] for an id that is not a 24-hex ObjectId, and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { id: 'abc', name: 'x', email: 'x@example.com', password: 'pw' },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'id'])
    await assertNothingWritten()
  })

  it('answers 422 at ["body","managerId"] for a reference field that is not a 24-hex ObjectId', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'x', email: 'x@example.com', password: 'pw', managerId: 'not-an-id' },
    })
    expectEntryAt(expectBodyValidationError(res), ['body', 'managerId'])
    await assertNothingWritten()
  })

  it('reports one entry per invalid field', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/users',
      payload: { name: 'x', age: 'old' },
    })
    const entries = expectBodyValidationError(res)
    expectEntryAt(entries, ['body', 'email'])
    expectEntryAt(entries, ['body', 'password'])
    expectEntryAt(entries, ['body', 'age'])
    await assertNothingWritten()
  })
})
