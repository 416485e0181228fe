import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DriverDb } from 'fastify-mongo-crud'
import { buildApp, buildAppWith } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

const hal = { name: 'hal', email: 'hal@example.com', password: 'pw' }
const [memory] = storeModes

/** The store's db as a standalone MongoDB answers a transaction: IllegalOperation (20), as mongod says it. */
const standalone = (db: DriverDb): DriverDb => ({
  collection: (name) => db.collection(name),
  client: {
    startSession: () => ({
      withTransaction: async () => {
        throw Object.assign(new Error('Transaction numbers are only allowed on a replica set member or mongos'), { code: 20 })
      },
      endSession: async () => {},
    }),
  },
})

describe('atomic batches on a database without transactions', () => {
  it('a standalone MongoDB: 422 saying it needs a replica set; atomic: false works', async () => {
    const t = await buildAppWith(memory!, { wrapDb: standalone }, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const operations = [{ op: 'create', body: hal }]
      const res = await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { operations } })
      assert.equal(res.statusCode, 422)
      assert.match(res.json().detail, /standalone MongoDB server.*replica set/)
      const loose = await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { atomic: false, operations } })
      assert.deepEqual(loose.json().results.map((r: { status: number }) => r.status), [201])
    } finally {
      await t.close()
    }
  })

  it('a database handle without a client: 422', async () => {
    const t = await buildAppWith(memory!, { wrapDb: (db) => ({ collection: (name) => db.collection(name) }) }, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const res = await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { operations: [{ op: 'create', body: hal }] } })
      assert.equal(res.statusCode, 422)
      assert.match(res.json().detail, /no client/)
    } finally {
      await t.close()
    }
  })
})

describe('maxBatchOperations', () => {
  it('is 100 by default: 101 operations are 422', async () => {
    const t = await buildApp(memory!, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const operations = (count: number) => Array.from({ length: count }, () => ({ op: 'delete', id: 'ffffffffffffffffffffffff' }))
      assert.equal((await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { atomic: false, operations: operations(100) } })).statusCode, 200)
      assert.equal((await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { atomic: false, operations: operations(101) } })).statusCode, 422)
    } finally {
      await t.close()
    }
  })
})

describe("a batch and the app's body limit", () => {
  it('a batch past bodyLimit is 413', async () => {
    const t = await buildAppWith(memory!, { fastify: { logger: false, bodyLimit: 2048 } }, { model: User, collectionName: 'users', prefix: '/users' })
    try {
      const operations = Array.from({ length: 60 }, () => ({ op: 'create', body: hal }))
      const res = await t.app.inject({ method: 'POST', url: '/users/_batch', payload: { operations } })
      assert.equal(res.statusCode, 413)
    } finally {
      await t.close()
    }
  })
})

describe('path segments the router keeps for itself', () => {
  it('with an identifierField, _batch, _events and _groups are refused on create and replace (422)', async () => {
    const t = await buildApp(memory!, { model: User, collectionName: 'named', prefix: '/named', identifierField: 'name' })
    try {
      for (const name of ['_batch', '_events', '_groups']) {
        const res = await t.app.inject({ method: 'POST', url: '/named', payload: { ...hal, name } })
        assert.equal(res.statusCode, 422, name)
        assert.deepEqual(res.json().detail[0].loc, ['body', 'name'])
        assert.match(res.json().detail[0].msg, /reserved/)
      }
      await createDoc(t.app, '/named', hal)
      const replaced = await t.app.inject({ method: 'PUT', url: '/named/hal', payload: { ...hal, name: '_batch' } })
      assert.equal(replaced.statusCode, 422)
      assert.match(replaced.json().detail[0].msg, /reserved/)
      // Other values, and these ones with `_id` as the identifier (ids are ObjectIds), are not refused.
      assert.equal((await t.app.inject({ method: 'POST', url: '/named', payload: { ...hal, name: '_batches' } })).statusCode, 201)
    } finally {
      await t.close()
    }
  })

  it('a PATCH of any media type, a batch update and a batch replace may not move a document onto them either: 422 as create', async () => {
    const t = await buildApp(memory!, { model: User, collectionName: 'named', prefix: '/named', identifierField: 'name' })
    try {
      await createDoc(t.app, '/named', hal)
      const refusal = (await t.app.inject({ method: 'POST', url: '/named', payload: { ...hal, name: '_groups' } })).json()
      const patches: Array<[string, unknown]> = [
        ['application/json', { name: '_groups' }],
        ['application/merge-patch+json', { name: '_groups' }],
        ['application/json-patch+json', [{ op: 'replace', path: '/name', value: '_groups' }]],
      ]
      for (const [type, body] of patches) {
        const res = await t.app.inject({ method: 'PATCH', url: '/named/hal', payload: JSON.stringify(body), headers: { 'content-type': type } })
        assert.deepEqual([res.statusCode, res.json()], [422, refusal], type)
      }
      for (const [contentType, body] of patches) {
        const res = await t.app.inject({ method: 'POST', url: '/named/_batch', payload: { operations: [{ op: 'update', id: 'hal', contentType, body }] } })
        assert.deepEqual([res.statusCode, res.json()], [422, { ...refusal, index: 0 }], `batch update ${contentType}`)
      }
      const loose = await t.app.inject({ method: 'POST', url: '/named/_batch', payload: { atomic: false, operations: [{ op: 'update', id: 'hal', body: { name: '_groups' } }, { op: 'replace', id: 'hal', body: { ...hal, name: '_groups' } }] } })
      assert.deepEqual(loose.json().results, [{ status: 422, ...refusal }, { status: 422, ...refusal }])
      // Still where it was, and nothing was written.
      const read = await t.app.inject({ method: 'GET', url: '/named/hal' })
      assert.deepEqual([read.statusCode, read.json().name], [200, 'hal'])
      assert.equal(await t.store.db.collection('named').countDocuments({ name: { $in: ['_batch', '_events', '_groups'] } }), 0)
    } finally {
      await t.close()
    }
  })
})
