import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { after, before, it } from 'node:test'
import { ALL_A, ENDS_BANG, FEW_A, NAMES, CATASTROPHIC as SHARED_FAMILIES } from '../../packages/linear-regex/test/regex-families.ts'
import { buildApp, filtersQuery, type TestApp } from '../harness/app.ts'
import { getJson, seedDocs } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { account, accountsRouter, expectRefused } from './fixtures.ts'

/**
 * ReDoS through `$regex`: with a backtracking engine, a pattern such as `a*a*a*a*a*a*!` or `(a+)+$` takes
 * exponential (or high-polynomial) time on a near-match, and the embedded engine runs regexes on the event
 * loop, so one request would stall every other. Client patterns are matched in linear time (RE2 semantics):
 * these patterns answer, with MongoDB's result, while a concurrent request is served. What RE2 cannot
 * express (lookarounds, backreferences) is a 422 that names the feature.
 */
/** The shared families, then more nested repetitions over HTTP. */
const CATASTROPHIC: Array<[string, string[]]> = [
  ...SHARED_FAMILIES,
  ['^(a+)+b', ['abab']],
  ['(a*)*b', ['abab', 'bob']],
  ['(a|aa)+$', [ALL_A, FEW_A]],
  ['(\\w+\\s?)*$', NAMES],
  ['([a-z]+)*[0-9]', []],
]

/** Patterns RE2 cannot express, and the word the 422 names. */
const UNSUPPORTED: Array<[string, string]> = [
  ['(?=a)a*a*a*a*!', 'lookahead'],
  ['(?!b)a*a*a*a*!', 'lookahead'],
  ['(?<=a)a*a*a*a*!', 'lookbehind'],
  ['(?<!b)a*a*a*a*!', 'lookbehind'],
  ['(a*)\\1a*a*!', 'backreference'],
  ['(?<n>a*)\\k<n>!', 'backreference'],
  ['(?>a*)*!', 'atomic group'],
  ['a*+a*!', 'possessive'],
]

const TIMEOUT = { timeout: 60_000 }

const sorted = (docs: Array<{ name: string }>) => docs.map((doc) => doc.name).sort()

describeEachStore('$regex cannot stall the server', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    await seedDocs(
      t.app,
      '/accounts',
      NAMES.map((name) => account(name)),
    )
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/accounts${filtersQuery(filter)}` })
  const names = async (filter: unknown) => sorted(await getJson(t.app, `/accounts${filtersQuery(filter)}`))

  /** The hostile request and a simple one sent together; both answer, and how long each took is printed. */
  async function race(hostile: unknown, diagnostic: (message: string) => void) {
    const started = performance.now()
    const timed = async (filter: unknown) => {
      const res = await list(filter)
      return { res, ms: performance.now() - started }
    }
    const [slow, simple] = await Promise.all([timed(hostile), timed({ name: 'alice' })])
    diagnostic(`hostile ${slow.ms.toFixed(1)} ms, concurrent simple ${simple.ms.toFixed(1)} ms`)
    assert.equal(simple.res.statusCode, 200, simple.res.body)
    assert.deepEqual(sorted(simple.res.json()), ['alice'])
    return slow.res
  }

  for (const [pattern, expected] of CATASTROPHIC) {
    for (const options of ['', 'i']) {
      it(`matches ${pattern} with $options "${options}" in linear time, with MongoDB's result, while a concurrent GET answers`, TIMEOUT, async (tc) => {
        const res = await race({ name: { $regex: pattern, $options: options } }, (m) => tc.diagnostic(m))
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual(sorted(res.json()), [...expected].sort())
      })
    }
  }

  for (const [pattern, feature] of UNSUPPORTED) {
    for (const options of ['', 'i']) {
      it(`answers 422 naming ${feature} for ${pattern} with $options "${options}"`, TIMEOUT, async (tc) => {
        const res = await race({ name: { $regex: pattern, $options: options } }, (m) => tc.diagnostic(m))
        expectRefused(res, feature)
        expectRefused(res, 'not supported')
      })
    }
  }

  it('matches catastrophic patterns inside $not, $elemMatch and $or in linear time', TIMEOUT, async () => {
    assert.deepEqual(await names({ name: { $not: { $regex: 'a*a*a*a*a*a*!', $options: 'i' } } }), NAMES.filter((n) => n !== ENDS_BANG).sort())
    assert.deepEqual(await names({ tags: { $elemMatch: { $regex: '^(a|a)*b', $options: 'i' } } }), ['abab', 'bob'])
    assert.deepEqual(await names({ $or: [{ email: 'x' }, { name: { $regex: '(.*a){20}', $options: 'i' } }] }), [ALL_A, ENDS_BANG].sort())
    assert.deepEqual(await names({ history: { $elemMatch: { note: { $regex: '(j*)*x' } } } }), [])
  })

  it('answers 422 for a lookaround inside $not, $elemMatch and $or', async () => {
    expectRefused(await list({ name: { $not: { $regex: '(?=a)a*a*a*a*!' } } }), 'lookahead')
    expectRefused(await list({ tags: { $elemMatch: { $regex: '(?<=a)b', $options: 'i' } } }), 'lookbehind')
    expectRefused(await list({ $or: [{ email: 'x' }, { name: { $regex: '(?!a)a*a*a*a*!' } }] }), 'lookahead')
  })

  it('reads extended mode (x) as MongoDB does: whitespace and # comments are not part of the pattern', TIMEOUT, async () => {
    assert.deepEqual(await names({ name: { $regex: '( a + ) + $', $options: 'x' } }), [ALL_A, FEW_A].sort())
    assert.deepEqual(await names({ name: { $regex: '^ b o b # a comment\n$', $options: 'x' } }), ['bob'])
    // Inside a character class, white space is literal even with `x`.
    assert.deepEqual(await names({ name: { $regex: '^[ b]ob$', $options: 'x' } }), ['bob'])
    expectRefused(await list({ name: { $regex: '( ?= a ) a', $options: 'x' } }), 'lookahead')
  })

  it('answers 422 for a pattern too large to match in bounded time', async () => {
    // Within the length limit, counted repetitions can still expand to tens of thousands of steps.
    expectRefused(await list({ name: { $regex: '.{1000}'.repeat(36) } }), 'too large')
    // RE2 bounds one repetition count at 1000.
    expectRefused(await list({ name: { $regex: '(.*){1,32000}[bc]' } }), 'repeat count')
  })

  it('still runs ordinary patterns, groups and bounded repetition included', async () => {
    const named = (pattern: string) => names({ name: { $regex: pattern } })
    assert.deepEqual(await named('^al'), ['alice'])
    assert.deepEqual(await named('ob$'), ['bob'])
    assert.deepEqual(await named('^(ab)+$'), ['abab'])
    assert.deepEqual(await named('^[a-z]+$'), ['abab', ALL_A, 'alice', 'bob', FEW_A].sort())
    assert.deepEqual(await named('^a{20,}!'), [ENDS_BANG])
    assert.deepEqual(await named('^(?:al|bo)'), ['alice', 'bob'])
    assert.deepEqual(await named('^A'), [])
    assert.deepEqual(await names({ name: { $regex: '^AL', $options: 'i' } }), ['alice'])
    assert.deepEqual(await named('\\.'), [])
  })
})
