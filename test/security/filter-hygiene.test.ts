import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, expectPrototypeClean, expectRefused, getWithRawFilters } from './fixtures.ts'

/**
 * Prototype-poisoning keys in parsed filters, client-forged BSON type tags, and `filters` values that
 * are not filter documents at all. Raw JSON is sent as typed: `JSON.stringify` of an object literal
 * would drop a `__proto__` key.
 */
const POISON: Record<string, string> = {
  'top-level __proto__': '{"__proto__":{"polluted":true}}',
  'top-level constructor.prototype': '{"constructor":{"prototype":{"polluted":true}}}',
  'top-level prototype': '{"prototype":{"polluted":true}}',
  '__proto__ inside $and': '{"$and":[{"__proto__":{"polluted":true}}]}',
  '__proto__ inside $or': '{"$or":[{"name":"alice"},{"__proto__":{"isAdmin":true}}]}',
  '__proto__ as an operator key': '{"name":{"__proto__":{"polluted":true}}}',
  '__proto__ inside $not': '{"name":{"$not":{"__proto__":{"polluted":true}}}}',
  '__proto__ inside $elemMatch': '{"history":{"$elemMatch":{"__proto__":{"polluted":true}}}}',
  '__proto__ inside a sub-document literal': '{"profile":{"city":"Oslo","__proto__":{"polluted":true}}}',
  '__proto__ inside a record value': '{"meta":{"__proto__":{"polluted":true}}}',
  'constructor inside a record value': '{"meta":{"constructor":{"prototype":{"polluted":true}}}}',
  '__proto__ inside an $in value': '{"meta":{"$in":[{"__proto__":{"polluted":true}}]}}',
  '__proto__ as a path segment': '{"profile.__proto__.polluted":true}',
  'constructor.prototype as a path': '{"constructor.prototype.polluted":true}',
  '__proto__ deep in a value': '{"meta":{"a":{"b":[{"c":{"__proto__":{"polluted":true}}}]}}}',
}

const FORGED: Record<string, string> = {
  '_bsontype on an ObjectId field': '{"managerId":{"_bsontype":"ObjectId","id":"aaaaaaaaaaaa"}}',
  '_bsontype Code on a text field': '{"name":{"_bsontype":"Code","code":"function(){return true}"}}',
  '_bsontype inside a record value': '{"meta":{"plan":{"_bsontype":"Code","code":"1"}}}',
  '_bsontype at the top level': '{"_bsontype":"ObjectId"}',
  '$oid on an ObjectId field': '{"managerId":{"$oid":"aaaaaaaaaaaaaaaaaaaaaaaa"}}',
  '$oid on id': '{"id":{"$oid":"aaaaaaaaaaaaaaaaaaaaaaaa"}}',
  '$oid inside $in': '{"managerId":{"$in":[{"$oid":"aaaaaaaaaaaaaaaaaaaaaaaa"}]}}',
  '$date on a text field': '{"name":{"$date":"2020-01-01T00:00:00Z"}}',
  '$numberLong': '{"age":{"$numberLong":"1"}}',
  '$regularExpression': '{"name":{"$regularExpression":{"pattern":".*","options":""}}}',
  '$binary': '{"name":{"$binary":{"base64":"","subType":"00"}}}',
  '$-key inside a record value': '{"meta":{"plan":{"$gt":""}}}',
  'dotted key inside a record value': '{"meta":{"a.b":1}}',
  'an ObjectId field given a short string': '{"managerId":"abc"}',
  'an ObjectId field given 24 non-hex characters': '{"managerId":"zzzzzzzzzzzzzzzzzzzzzzzz"}',
  'an ObjectId field given a number': '{"managerId":12345}',
  'an ObjectId field given an array of objects': '{"managerId":[{"a":1}]}',
  'id given an object': '{"id":{"a":1}}',
}

describeEachStore('filters: input hygiene', (mode) => {
  let t: TestApp
  let alice: Json
  let bob: Json
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    ;[alice] = await seedDocs(t.app, '/accounts', [account('alice')])
    ;[bob] = await seedDocs(t.app, '/accounts', [account('bob', { managerId: alice.id })])
  })
  after(() => {
    expectPrototypeClean()
    return t.close()
  })

  describe('prototype-poisoning keys', () => {
    for (const [label, raw] of Object.entries(POISON)) {
      it(`answers 422 for ${label} and leaves Object.prototype untouched`, async () => {
        expectRefused(await getWithRawFilters(t.app, '/accounts', raw))
        expectPrototypeClean()
      })
    }

    it('names the key in the detail', async () => {
      expectDetail(await getWithRawFilters(t.app, '/accounts', POISON['top-level __proto__']!), 422, 'filters: key "__proto__" is not allowed')
      expectRefused(await getWithRawFilters(t.app, '/accounts', '{"constructor":{"a":1}}'), 'constructor')
    })
  })

  describe('forged BSON types and ill-typed values', () => {
    for (const [label, raw] of Object.entries(FORGED)) {
      it(`answers 422 for ${label}`, async () => {
        expectRefused(await getWithRawFilters(t.app, '/accounts', raw))
      })
    }

    it('compares 24-hex strings on ObjectId fields as ObjectIds, in any case', async () => {
      const docs = await getJson(t.app, `/accounts${filtersQuery({ managerId: alice.id })}`)
      assert.deepEqual(
        docs.map((doc: Json) => doc.id),
        [bob.id],
      )
      const upper = await getJson(t.app, `/accounts${filtersQuery({ managerId: { $in: [String(alice.id).toUpperCase()] } })}`)
      assert.deepEqual(
        upper.map((doc: Json) => doc.id),
        [bob.id],
      )
    })
  })

  describe('filters that are not a filter document', () => {
    for (const raw of ['[]', '"x"', '123', 'null', '[{"$where":"1"}]', 'true']) {
      it(`answers 422 "filters must be a JSON object" for ${raw}`, async () => {
        expectDetail(await getWithRawFilters(t.app, '/accounts', raw), 422, 'filters must be a JSON object')
      })
    }

    for (const raw of ['{', "{'$where':'1'}", '{"a":1}x', 'NaN', '{"a":undefined}']) {
      it(`answers 422 "Invalid JSON in filters parameter" for ${raw}`, async () => {
        expectDetail(await getWithRawFilters(t.app, '/accounts', raw), 422, 'Invalid JSON in filters parameter')
      })
    }

    it('answers 422 for filters sent twice', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/accounts?filters=${encodeURIComponent('{}')}&filters=${encodeURIComponent('{"$where":"1"}')}` })
      expectRefused(res)
    })
  })
})
