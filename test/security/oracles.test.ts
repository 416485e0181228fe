import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { CRUDEmbed, CRUDLookup, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { ObjectId } from 'mongodb'
import { buildApp, type RouterOptions, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError, expectEntryAt } from '../harness/expect.ts'
import { Note } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

/**
 * No answer may confirm a guess about data the caller cannot read: an ETag is bound to the place of
 * what it tags (so a copy elsewhere never shares it), and under a row scope a create's answer never
 * tells a taken id from a free one.
 */
const asAlice = { 'x-user': 'alice' }
const asBob = { 'x-user': 'bob' }
const ownerScope = async (request: FastifyRequest) => ({ owner: request.headers['x-user'] })

const Card = MongoModel('Card', { label: Type.String(), pin: Type.String() })
const CardOut = MongoModelOut('CardOut', { label: Type.String() })
const Wallet = MongoModel('Wallet', { owner: Type.String() })
const Receipt = MongoModel('Receipt', { total: Type.Number(), walletId: ObjectIdField() })

describe('ETags are bound to their place [embedded-memory]', () => {
  let t: TestApp
  before(async () => {
    const mode = storeModes[0]!
    t = await buildApp(
      mode,
      {
        model: Wallet,
        collectionName: 'wallets',
        prefix: '/wallets',
        etagKey: 'k'.repeat(32),
        embeds: [new CRUDEmbed({ model: Card, modelOut: CardOut, embedName: 'cards' })],
        lookups: [new CRUDLookup({ model: Receipt, collectionName: 'receipts', prefix: 'receipts', localField: '_id', foreignField: 'walletId' })],
      },
      { model: Receipt, collectionName: 'receipts', prefix: '/receipts', etagKey: 'k'.repeat(32) },
      { model: Receipt, collectionName: 'receipts2', prefix: '/receipts2', etagKey: 'k'.repeat(32) },
      { model: Card, modelOut: CardOut, collectionName: 'cards', prefix: '/cards', etagKey: 'k'.repeat(32) },
      { model: Card, modelOut: CardOut, collectionName: 'cards2', prefix: '/cards2', etagKey: 'k'.repeat(32) }
    )
  })
  after(() => t.close())

  it('an item copied under another parent with the same id and hidden value gets another tag', async () => {
    const alices = await createDoc(t.app, '/wallets', { owner: 'alice' })
    const mallorys = await createDoc(t.app, '/wallets', { owner: 'mallory' })
    const id = new ObjectId().toHexString()
    const original = await t.app.inject({ method: 'POST', url: `/wallets/${alices.id}/cards`, payload: { id, label: 'visa', pin: '4711' } })
    assert.equal(original.statusCode, 201, original.body)
    // Mallory copies what she can read, and guesses the hidden pin right.
    const copy = await t.app.inject({ method: 'POST', url: `/wallets/${mallorys.id}/cards`, payload: { id, label: 'visa', pin: '4711' } })
    assert.equal(copy.statusCode, 201, copy.body)
    assert.notEqual(copy.headers.etag, original.headers.etag)
    const read = await t.app.inject({ method: 'GET', url: `/wallets/${alices.id}/cards/${id}` })
    assert.equal(read.headers.etag, original.headers.etag)
    // The tag still works where it belongs: If-None-Match and If-Match on Alice's item.
    const fresh = await t.app.inject({ method: 'GET', url: `/wallets/${alices.id}/cards/${id}`, headers: { 'if-none-match': String(original.headers.etag) } })
    assert.equal(fresh.statusCode, 304)
    const stale = await t.app.inject({ method: 'GET', url: `/wallets/${mallorys.id}/cards/${id}`, headers: { 'if-none-match': String(original.headers.etag) } })
    assert.equal(stale.statusCode, 200)
    const patch = await t.app.inject({ method: 'PATCH', url: `/wallets/${mallorys.id}/cards/${id}`, payload: { label: 'visa' }, headers: { 'if-match': String(original.headers.etag) } })
    assert.equal(patch.statusCode, 412, patch.body)
  })

  it('a document copied into another collection under one etagKey gets another tag', async () => {
    const id = new ObjectId().toHexString()
    const original = await t.app.inject({ method: 'POST', url: '/cards', payload: { id, label: 'visa', pin: '4711' } })
    const copy = await t.app.inject({ method: 'POST', url: '/cards2', payload: { id, label: 'visa', pin: '4711' } })
    assert.equal(original.statusCode, 201, original.body)
    assert.equal(copy.statusCode, 201, copy.body)
    assert.notEqual(copy.headers.etag, original.headers.etag)
    const read = await t.app.inject({ method: 'GET', url: `/cards/${id}`, headers: { 'if-none-match': String(original.headers.etag) } })
    assert.equal(read.statusCode, 304)
  })

  it("a lookup child has its collection's tag, and a copy in another collection another one", async () => {
    const wallet = await createDoc(t.app, '/wallets', { owner: 'alice' })
    const child = await t.app.inject({ method: 'POST', url: `/wallets/${wallet.id}/receipts`, payload: { total: 12 } })
    assert.equal(child.statusCode, 201, child.body)
    const direct = await t.app.inject({ method: 'GET', url: `/receipts/${child.json().id}` })
    assert.equal(direct.headers.etag, child.headers.etag)
    const copy = await t.app.inject({ method: 'POST', url: '/receipts2', payload: child.json() })
    assert.equal(copy.statusCode, 201, copy.body)
    assert.notEqual(copy.headers.etag, child.headers.etag)
  })
})

const notes = (extra: Partial<RouterOptions> = {}): RouterOptions => ({ model: Note, collectionName: 'notes', prefix: '/notes', filterDependency: ownerScope, ...extra })

describeEachStore('under a scope, a create never tells a taken id from a free one', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, notes(), notes({ prefix: '/open-notes', clientIdsUnderScope: 'allow' }))
  })
  after(() => t.close())

  it('refuses a client-chosen id with 422, taken by another scope or free, with or without If-None-Match', async () => {
    const alices = await createDoc(t.app, '/notes', { title: 'secret', owner: 'alice' }, asAlice)
    const free = new ObjectId().toHexString()
    for (const id of [alices.id, free]) {
      for (const headers of [asBob, { ...asBob, 'if-none-match': '*' }]) {
        const res = await t.app.inject({ method: 'POST', url: '/notes', payload: { id, title: 'probe' }, headers })
        expectEntryAt(expectBodyValidationError(res), ['body', 'id'])
      }
    }
    assert.equal((await getJson(t.app, '/notes', asBob)).length, 0)
    assert.equal((await getJson(t.app, `/notes/${alices.id}`, asAlice)).title, 'secret')
  })

  it('creates without an id as before, the server choosing it', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/notes', payload: { title: 'mine' }, headers: asBob })
    assert.equal(res.statusCode, 201, res.body)
  })

  it("clientIdsUnderScope: 'allow' accepts them again", async () => {
    const id = new ObjectId().toHexString()
    const res = await t.app.inject({ method: 'POST', url: '/open-notes', payload: { id, title: 'chosen' }, headers: asBob })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().id, id)
  })
})

describe('the API file: scope.clientIds [embedded-memory]', () => {
  const api = (clientIds?: 'refuse' | 'allow') => ({
    models: { Memo: { type: 'object', properties: { text: { type: 'string' }, owner: { type: 'string' } }, required: ['text', 'owner'] } },
    routers: { memos: { prefix: '/memos', collection: 'memos', model: 'Memo', scope: { field: 'owner', header: 'x-user', ...(clientIds === undefined ? {} : { clientIds }) } } },
  })
  for (const [clientIds, status] of [[undefined, 422], ['refuse', 422], ['allow', 201]] as const) {
    it(`clientIds ${clientIds ?? 'left out'}: a create with an id answers ${status}`, async () => {
      const store = await storeModes[0]!.open()
      const app = await buildApiApp(parseApiFile(JSON.stringify(api(clientIds))), store.db, { fastify: { logger: false } })
      try {
        const res = await app.inject({ method: 'POST', url: '/memos', payload: { id: new ObjectId().toHexString(), text: 't' }, headers: asBob })
        assert.equal(res.statusCode, status, res.body)
      } finally {
        await app.close()
        await store.close()
      }
    })
  }
})
