import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { Account, account, accountsRouter, expectPrototypeClean, expectRefused, sendRawJson } from './fixtures.ts'

/**
 * Keys a body must never carry into the database: `$` operators (an update operator smuggled into a
 * free-form field), dotted keys (path injection), and prototype-poisoning keys.
 */
const OPERATOR_KEYS: Record<string, [key: string, fields: Record<string, unknown>]> = {
  '$set at the top level': ['$set', { $set: { password: 'x' } }],
  '$-key in a record field': ['$set', { meta: { $set: 1 } }],
  '$where in a record field': ['$where', { meta: { $where: 'true' } }],
  '$-key nested in a record field': ['$gt', { meta: { plan: { $gt: '' } } }],
  '$-key in an array of an any field': ['$gt', { extra: [{ $gt: 1 }] }],
  '$-key deep in an any field': ['$inc', { extra: { a: { b: [{ c: { $inc: { age: 1 } } }] } } }],
  'dotted key in a record field': ['a.b', { meta: { 'a.b': 1 } }],
  'dotted key deep in an any field': ['x.y', { extra: { deep: [{ 'x.y': 1 }] } }],
  'dotted key at the top level': ['profile.city', { 'profile.city': 'x' }],
  '$oid forgery in an any field': ['$oid', { extra: { $oid: 'aaaaaaaaaaaaaaaaaaaaaaaa' } }],
  '_bsontype forgery in a record field': ['_bsontype', { meta: { v: { _bsontype: 'Code', code: 'x' } } }],
}

/** Raw JSON bodies (object literals would lose `__proto__`), each merged into a valid account. */
const POISON: Record<string, string> = {
  'top-level __proto__': '"__proto__":{"polluted":true}',
  'top-level constructor.prototype': '"constructor":{"prototype":{"polluted":true}}',
  'top-level constructor': '"constructor":"x"',
  'top-level prototype': '"prototype":{"polluted":true}',
  '__proto__ in a record field': '"meta":{"__proto__":{"polluted":true}}',
  'constructor.prototype in a record field': '"meta":{"constructor":{"prototype":{"polluted":true}}}',
  'constructor in a record field': '"meta":{"constructor":"x"}',
  'prototype in a record field': '"meta":{"prototype":{"x":1}}',
  '__proto__ deep in an any field': '"extra":{"a":[{"b":{"__proto__":{"isAdmin":true}}}]}',
  'constructor.prototype deep in an any field': '"extra":[{"constructor":{"prototype":{"isAdmin":true}}}]',
  '__proto__ in a sub-document': '"profile":{"city":"x","secret":"y","__proto__":{"polluted":true}}',
}

const validJson = (name: string) => JSON.stringify(account(name)).slice(0, -1)

describeEachStore('bodies: input hygiene', (mode) => {
  let t: TestApp
  let target: Json
  let other: Json
  before(async () => {
    t = await buildApp(mode, accountsRouter, { model: Account, collectionName: 'accounts', prefix: '/raw-accounts' })
    ;[target, other] = await seedDocs(t.app, '/accounts', [account('target'), account('other')])
  })
  after(() => {
    expectPrototypeClean()
    return t.close()
  })

  const stored = (id: string) => getJson(t.app, `/raw-accounts/${id}`)
  const count = async () => (await getJson(t.app, '/raw-accounts')).length

  describe('keys starting with $ or containing a dot', () => {
    for (const [label, [key, fields]] of Object.entries(OPERATOR_KEYS)) {
      it(`answers 422 naming ${key} on POST, PUT and PATCH for ${label}, and writes nothing`, async () => {
        const before = await stored(target.id)
        const total = await count()
        expectRefused(await t.app.inject({ method: 'POST', url: '/accounts', payload: { ...account('new'), ...fields } }), key)
        expectRefused(await t.app.inject({ method: 'PUT', url: `/accounts/${target.id}`, payload: { ...account('target'), ...fields } }), key)
        expectRefused(await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: fields }), key)
        assert.equal(await count(), total)
        assert.deepEqual(await stored(target.id), before)
      })
    }

    it('accepts ordinary keys in record and any fields', async () => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/accounts/${target.id}`,
        payload: { meta: { plan: 'pro', 'with-dash': 1, under_score: { nested: [1, 2] } }, extra: { a: [{ b: 'c' }] } },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().meta, { plan: 'pro', 'with-dash': 1, under_score: { nested: [1, 2] } })
    })
  })

  describe('prototype-poisoning keys', () => {
    for (const [label, fragment] of Object.entries(POISON)) {
      it(`answers 422 on POST, PUT and PATCH for ${label}, and Object.prototype stays untouched`, async () => {
        const before = await stored(target.id)
        const total = await count()
        expectRefused(await sendRawJson(t.app, 'POST', '/accounts', `${validJson('poison')},${fragment}}`))
        expectRefused(await sendRawJson(t.app, 'PUT', `/accounts/${target.id}`, `${validJson('target')},${fragment}}`))
        expectRefused(await sendRawJson(t.app, 'PATCH', `/accounts/${target.id}`, `{"age":5,${fragment}}`))
        expectPrototypeClean()
        assert.equal(await count(), total)
        assert.deepEqual(await stored(target.id), before)
      })
    }
  })

  describe('ids cannot be changed', () => {
    it('answers 422 for a PUT whose body id is another document', async () => {
      const res = await t.app.inject({ method: 'PUT', url: `/accounts/${target.id}`, payload: { ...account('target'), id: other.id } })
      expectRefused(res, 'id')
      assert.equal((await stored(target.id)).name, 'target')
      assert.equal((await stored(other.id)).name, 'other')
    })

    it('answers 422 for a PATCH whose body id is another document', async () => {
      const res = await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: { id: other.id, name: 'moved' } })
      expectRefused(res, 'id')
      assert.equal((await stored(target.id)).name, 'target')
      assert.equal((await stored(other.id)).name, 'other')
    })

    it('answers 422 for _id in a PUT or PATCH body', async () => {
      const put = await t.app.inject({ method: 'PUT', url: `/accounts/${target.id}`, payload: { ...account('target'), _id: other.id } })
      expectRefused(put)
      const patch = await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: { _id: other.id } })
      expectRefused(patch)
      assert.equal((await stored(target.id)).id, target.id)
    })

    it('answers 422 for a body id that is not an ObjectId', async () => {
      expectRefused(await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: { id: { $oid: other.id } } }))
      expectRefused(await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: { id: 'nope' } }))
    })

    it('accepts a body id equal to the path id and keeps it', async () => {
      const res = await t.app.inject({ method: 'PATCH', url: `/accounts/${target.id}`, payload: { id: target.id, age: 77 } })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().id, target.id)
    })
  })
})
