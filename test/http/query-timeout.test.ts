import assert from 'node:assert/strict'
import { after, afterEach, before, it } from 'node:test'
import { EmbeddedDb } from '@fastify-mongo-crud/embedded'
import type { InjectOptions } from 'fastify'
import { CRUDEmbed, CRUDLookup, type DriverDb } from 'fastify-mongo-crud'
import type { Db } from 'mongodb'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { aliceInput, User } from '../harness/models.ts'
import { Address, Author, Message, Person } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * A query past `maxTimeMS` is 503 with a detail that says so, on every route that queries with a time
 * limit. Made deterministic with MongoDB's `maxTimeAlwaysTimeOut` fail point (every operation carrying a
 * `maxTimeMS` fails with MaxTimeMSExpired), which the embedded engine implements like mongod.
 */
const TIMED_OUT = 'The query exceeded its time limit (maxTimeMS)'

async function timeOutAlways(db: DriverDb, on: boolean): Promise<void> {
  const mode = on ? 'alwaysOn' : 'off'
  if (db instanceof EmbeddedDb) db.configureFailPoint('maxTimeAlwaysTimeOut', mode)
  else await (db as unknown as Db).admin().command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode })
}

const messages = new CRUDLookup({ model: Message, collectionName: 'messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })
const addresses = new CRUDEmbed({ model: Address, embedName: 'addresses' })

describeEachStore('a query past maxTimeMS', (mode) => {
  let t: TestApp
  let alice: Json
  let author: Json
  let message: Json
  let person: Json
  let address: Json
  before(async () => {
    t = await buildAppWith(
      mode,
      {},
      { model: User, collectionName: 'users', prefix: '/users', maxTimeMS: 60_000 },
      { model: Author, collectionName: 'authors', prefix: '/authors', lookups: [messages], maxTimeMS: 60_000 },
      { model: Person, collectionName: 'people', prefix: '/people', embeds: [addresses], maxTimeMS: 60_000 },
    )
    alice = await createDoc(t.app, '/users', aliceInput)
    author = await createDoc(t.app, '/authors', { name: 'ann' })
    message = await createDoc(t.app, `/authors/${author.id}/messages`, { text: 'hi', authorId: author.id })
    person = await createDoc(t.app, '/people', { name: 'bea' })
    address = await createDoc(t.app, `/people/${person.id}/addresses`, { street: 's1', city: 'Rome' })
  })
  afterEach(() => timeOutAlways(t.store.db, false))
  after(() => t.close())

  const timedOutRoutes: Array<[label: string, request: () => InjectOptions]> = [
    ['GET list (one page)', () => ({ method: 'GET', url: '/users?limit=10' })],
    ['GET list (streamed)', () => ({ method: 'GET', url: '/users' })],
    ['GET one', () => ({ method: 'GET', url: `/users/${alice.id}` })],
    ['PUT', () => ({ method: 'PUT', url: `/users/${alice.id}`, payload: { ...aliceInput, name: 'x' } })],
    ['PATCH', () => ({ method: 'PATCH', url: `/users/${alice.id}`, payload: { name: 'x' } })],
    ['DELETE', () => ({ method: 'DELETE', url: `/users/${alice.id}` })],
    ['lookup GET list (one page)', () => ({ method: 'GET', url: `/authors/${author.id}/messages?limit=10` })],
    ['lookup GET list (streamed)', () => ({ method: 'GET', url: `/authors/${author.id}/messages` })],
    ['lookup POST', () => ({ method: 'POST', url: `/authors/${author.id}/messages`, payload: { text: 'x', authorId: author.id } })],
    ['lookup GET one', () => ({ method: 'GET', url: `/authors/${author.id}/messages/${message.id}` })],
    ['lookup PUT', () => ({ method: 'PUT', url: `/authors/${author.id}/messages/${message.id}`, payload: { text: 'x', authorId: author.id } })],
    ['lookup PATCH', () => ({ method: 'PATCH', url: `/authors/${author.id}/messages/${message.id}`, payload: { text: 'x' } })],
    ['lookup DELETE', () => ({ method: 'DELETE', url: `/authors/${author.id}/messages/${message.id}` })],
    ['embed GET list', () => ({ method: 'GET', url: `/people/${person.id}/addresses` })],
    ['embed POST', () => ({ method: 'POST', url: `/people/${person.id}/addresses`, payload: { street: 's2', city: 'Oslo' } })],
    ['embed GET one', () => ({ method: 'GET', url: `/people/${person.id}/addresses/${address.id}` })],
    ['embed PATCH', () => ({ method: 'PATCH', url: `/people/${person.id}/addresses/${address.id}`, payload: { city: 'Oslo' } })],
    ['embed DELETE', () => ({ method: 'DELETE', url: `/people/${person.id}/addresses/${address.id}` })],
  ]

  for (const [label, request] of timedOutRoutes) {
    it(`${label} answers 503 with a detail that says so`, async () => {
      await timeOutAlways(t.store.db, true)
      const res = await t.app.inject(request())
      expectDetail(res, 503, TIMED_OUT)
    })
  }

  it('changed nothing: every document is still there once the time limit is lifted', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/users/${alice.id}` })
    assert.equal(res.json().name, 'alice')
    const child = await t.app.inject({ method: 'GET', url: `/authors/${author.id}/messages/${message.id}` })
    assert.equal(child.json().text, 'hi')
    const item = await t.app.inject({ method: 'GET', url: `/people/${person.id}/addresses/${address.id}` })
    assert.equal(item.json().city, 'Rome')
  })

  it('POST of the main router has no time limit (an insert runs no query): it still creates', async () => {
    await timeOutAlways(t.store.db, true)
    const res = await t.app.inject({ method: 'POST', url: '/users', payload: { ...aliceInput, name: 'carl' } })
    assert.equal(res.statusCode, 201, res.body)
  })
})
