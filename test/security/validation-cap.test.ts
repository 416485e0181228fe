import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MongoModel, Type } from 'fastify-mongo-crud'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError } from '../harness/expect.ts'
import { getJson } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

/**
 * Validation answers are bounded: at most the first 20 issues, then one item saying how many more, and
 * the validator stops describing at the cap (a huge invalid array no longer costs seconds, most of a
 * gigabyte and a 48 MB answer). Validation runs before any store call, so one store mode is enough.
 */
const Bag = MongoModel('Bag', {
  name: Type.String(),
  tags: Type.Array(Type.String()),
  rows: Type.Optional(Type.Array(Type.Object({ a: Type.Integer(), b: Type.String() }))),
  one: Type.Optional(Type.String()),
  two: Type.Optional(Type.String()),
})

const more = (n: number) => ({ loc: ['body'], msg: `and ${n} more error${n === 1 ? '' : 's'}`, type: 'too_many_errors' })

describe('validation answers are bounded', () => {
  let t: TestApp
  before(async () => {
    t = await buildAppWith(storeModes[0]!, { fastify: { bodyLimit: 4 * 1024 * 1024 } }, { model: Bag, collectionName: 'bags', prefix: '/bags' })
  })
  after(() => t.close())

  const post = (payload: string) => t.app.inject({ method: 'POST', url: '/bags', payload, headers: { 'content-type': 'application/json' } })

  it('a 520,000-element array of wrong types: the first 20 issues and "and 519980 more errors"', { timeout: 60_000 }, async () => {
    const res = await post(`{"name":"x","tags":[${new Array(520_000).fill('1').join(',')}]}`)
    const entries = expectBodyValidationError(res)
    assert.equal(entries.length, 21)
    assert.deepEqual(entries.slice(0, 20).map((entry) => entry.loc), Array.from({ length: 20 }, (_, i) => ['body', 'tags', i]))
    assert.deepEqual(entries[0], { loc: ['body', 'tags', 0], msg: 'Input should be a valid string', type: 'string_type' })
    assert.deepEqual(entries[20], more(519_980))
    assert.ok(res.body.length < 4096, `answer of ${res.body.length} bytes`)
    assert.deepEqual(await getJson(t.app, '/bags'), [])
  })

  it('counts every failing field of every array item past the cap', async () => {
    const rows = Array.from({ length: 30 }, () => ({ a: 'x', b: 1 }))
    const entries = expectBodyValidationError(await post(JSON.stringify({ name: 'x', tags: [], rows })))
    assert.equal(entries.length, 21)
    assert.deepEqual(entries.slice(0, 4).map((entry) => entry.loc), [['body', 'rows', 0, 'a'], ['body', 'rows', 0, 'b'], ['body', 'rows', 1, 'a'], ['body', 'rows', 1, 'b']])
    assert.deepEqual(entries[20], more(40))
  })

  it('exactly 21 failing locations: 20 issues and "and 1 more error"', async () => {
    const entries = expectBodyValidationError(await post(JSON.stringify({ name: 'x', tags: [...new Array(20).fill(1)], one: 1 })))
    assert.equal(entries.length, 21)
    assert.deepEqual(entries[20], more(1))
  })

  it('20 failing locations or fewer: every one listed, no count item', async () => {
    const entries = expectBodyValidationError(await post(JSON.stringify({ tags: [...new Array(16).fill(1)], one: 1, two: 2, extra: true })))
    assert.equal(entries.length, 20)
    assert.ok(!entries.some((entry) => entry.type === 'too_many_errors'))
    for (const loc of [['body', 'name'], ['body', 'one'], ['body', 'two'], ['body', 'extra'], ['body', 'tags', 15]]) {
      assert.ok(entries.some((entry) => JSON.stringify(entry.loc) === JSON.stringify(loc)), `no entry at ${JSON.stringify(loc)}: ${JSON.stringify(entries)}`)
    }
  })
})
