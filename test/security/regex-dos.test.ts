import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, expectRefused } from './fixtures.ts'

/**
 * ReDoS through `$regex`: a pattern with nested quantifiers backtracks exponentially on a near-match,
 * and the embedded engine runs regexes on the event loop, so one request could stall every other.
 * The seeded near-match is short enough that a pattern that slipped through still ends, and the test
 * fails on its status instead of hanging.
 */
const NEAR_MATCH = `${'a'.repeat(24)}!`

const CATASTROPHIC = [
  '(a+)+$',
  '(a|a)*b',
  '(.*a){20}',
  '^(a+)+b',
  '(a*)*b',
  '(a|aa)+$',
  '(?:a+)+$',
  '((a+))+$',
  '(\\w+\\s?)*$',
  '(a+){2,}$',
  '(.*){1,32000}[bc]',
  '([a-z]+)*[0-9]',
]

describeEachStore('$regex cannot stall the server', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    await seedDocs(t.app, '/accounts', [account('alice'), account('bob'), account('abab'), account(NEAR_MATCH)])
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter)}` })
  const names = async (pattern: string) =>
    (await getJson(t.app, `/accounts${filtersQuery({ name: { $regex: pattern } })}`)).map((doc: { name: string }) => doc.name).sort()

  for (const pattern of CATASTROPHIC) {
    it(`answers 422 for ${pattern} and keeps answering a concurrent simple GET`, async () => {
      const [hostile, simple] = await Promise.all([list({ name: { $regex: pattern } }), list({ name: 'alice' })])
      expectRefused(hostile)
      assert.equal(simple.statusCode, 200, simple.body)
      assert.equal(simple.json().length, 1)
    })
  }

  it('answers 422 for a catastrophic pattern with $options "i"', async () => {
    expectRefused(await list({ name: { $regex: '(A+)+$', $options: 'i' } }))
  })

  it('answers 422 for a catastrophic pattern spelled out with extended-mode whitespace', async () => {
    // With `x`, `( a + ) + $` is `(a+)+$`: the check must look at the pattern the engine runs.
    expectRefused(await list({ name: { $regex: '( a + ) + $', $options: 'x' } }))
    expectRefused(await list({ name: { $regex: '(a|a) * b', $options: 'ix' } }))
  })

  it('answers 422 for a catastrophic pattern hidden behind an extended-mode comment', async () => {
    // With `x`, `#` starts a comment up to the line end: this is `(a+)+$` once the comment is gone,
    // while read without `x` it is a valid, harmless pattern (a literal `#`, then newlines).
    expectRefused(await list({ name: { $regex: '(a+)#\n+$', $options: 'x' } }))
  })

  it('answers 422 for a catastrophic pattern inside $not, $elemMatch and $or', async () => {
    expectRefused(await list({ name: { $not: { $regex: '(a+)+$' } } }))
    expectRefused(await list({ tags: { $elemMatch: { $regex: '(a|a)*b' } } }))
    expectRefused(await list({ $or: [{ email: 'x' }, { name: { $regex: '(.*a){20}' } }] }))
    expectRefused(await list({ history: { $elemMatch: { note: { $regex: '(a*)*b' } } } }))
  })

  it('still runs ordinary patterns, groups and bounded repetition included', async () => {
    assert.deepEqual(await names('^al'), ['alice'])
    assert.deepEqual(await names('ob$'), ['bob'])
    assert.deepEqual(await names('^(ab)+$'), ['abab'])
    assert.deepEqual(await names('^[a-z]+$'), ['abab', 'alice', 'bob'])
    assert.deepEqual(await names('^a{20,}'), [NEAR_MATCH])
    assert.deepEqual(await names('^(?:al|bo)'), ['alice', 'bob'])
    assert.deepEqual(await names('\\.'), [])
  })
})
