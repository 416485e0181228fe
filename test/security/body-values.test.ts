import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError, expectEntryAt } from '../harness/expect.ts'
import { getJson, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, sendRawJson } from './fixtures.ts'

/**
 * Values JSON can carry but a document cannot keep as sent: numbers beyond a double (`1e400` parses to
 * Infinity) and strings that are not well-formed Unicode (a lone surrogate is stored as U+FFFD). Both are
 * refused with 422 at the value, so a write never answers something other than what was stored.
 */
const validJson = JSON.stringify(account('ann')).slice(0, -1)

const REFUSED: Record<string, [json: string, loc: Array<string | number>, type: string]> = {
  '1e400 in a record field': [`${validJson},"meta":{"big":1e400}}`, ['body', 'meta', 'big'], 'finite_number'],
  '-1e400 deep in an any field': [`${validJson},"extra":{"a":[1,{"b":-1e400}]}}`, ['body', 'extra', 'a', 1, 'b'], 'finite_number'],
  '1e400 in an integer field': [`${validJson},"age":1e400}`, ['body', 'age'], 'finite_number'],
  'a lone high surrogate in a string field': [`${validJson},"name":"\\ud800"}`, ['body', 'name'], 'string_unicode'],
  'a lone low surrogate inside an array item': [`${validJson},"tags":["ok","a\\udc00b"]}`, ['body', 'tags', 1], 'string_unicode'],
  'a lone surrogate in a record value': [`${validJson},"meta":{"k":"\\udbff"}}`, ['body', 'meta', 'k'], 'string_unicode'],
  'a lone surrogate in a key': [`${validJson},"meta":{"\\ud800":1}}`, ['body', 'meta', '\ud800'], 'string_unicode'],
}

describeEachStore('bodies: values a document cannot keep as sent', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
  })
  after(() => t.close())

  describe('POST refuses them with 422 at the value, and stores nothing', () => {
    for (const [label, [json, loc, type]] of Object.entries(REFUSED)) {
      it(label, async () => {
        const res = await sendRawJson(t.app, 'POST', '/accounts', json)
        const entries = expectBodyValidationError(res)
        expectEntryAt(entries, loc)
        assert.equal(entries.find((entry) => JSON.stringify(entry.loc) === JSON.stringify(loc))?.type, type, res.body)
        assert.deepEqual(await getJson(t.app, '/accounts'), [])
      })
    }
  })

  it('PUT and PATCH refuse them too, and change nothing', async () => {
    const created = await sendRawJson(t.app, 'POST', '/accounts', `${validJson}}`)
    assert.equal(created.statusCode, 201, created.body)
    const id: string = created.json().id
    const put = await sendRawJson(t.app, 'PUT', `/accounts/${id}`, `${validJson},"meta":{"big":1e400}}`)
    expectEntryAt(expectBodyValidationError(put), ['body', 'meta', 'big'])
    const patch = await sendRawJson(t.app, 'PATCH', `/accounts/${id}`, '{"name":"\\udfff"}')
    expectEntryAt(expectBodyValidationError(patch), ['body', 'name'])
    const stored: Json = await getJson(t.app, `/accounts/${id}`)
    assert.deepEqual({ name: stored.name, meta: stored.meta }, { name: 'ann', meta: { plan: 'free', level: 3 } })
    await t.app.inject({ method: 'DELETE', url: `/accounts/${id}` })
  })

  it('well-formed text outside the BMP (a surrogate pair) and large finite numbers are kept as sent', async () => {
    const res = await sendRawJson(t.app, 'POST', '/accounts', `${validJson},"name":"\\ud83d\\ude00","meta":{"big":1.7976931348623157e308}}`)
    assert.equal(res.statusCode, 201, res.body)
    const created: Json = res.json()
    assert.equal(created.name, '😀')
    const stored: Json = await getJson(t.app, `/accounts/${created.id}`)
    assert.deepEqual({ name: stored.name, big: stored.meta.big }, { name: '😀', big: Number.MAX_VALUE })
  })
})
