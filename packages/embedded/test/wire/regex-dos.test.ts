import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { before, describe, it } from 'node:test'
import { type Document, MongoServerError } from 'mongodb'
import { CATASTROPHIC, NAMES } from '../../../linear-regex/test/regex-families.ts'
import { useWireServer } from './wire-harness.ts'

/**
 * Client regular expressions reach the engine through the wire protocol in find filters (`$regex`,
 * BSON regex values, regexes in `$in` / `$nin` / `$all`, `$not`), in aggregation `$match` and in the
 * `$regexMatch` / `$regexFind` / `$regexFindAll` expressions. Every one is matched in linear time, so a
 * catastrophic pattern answers (with MongoDB's result) while another client is served; what RE2 cannot
 * express is refused with the server's "Regular expression is invalid" error shape.
 */

const LOOKAROUNDS: Array<[string, string]> = [
  ['(?=a)a*a*a*a*!', 'lookahead'],
  ['(?<!b)a*a*a*a*!', 'lookbehind'],
  ['(a*)\\1!', 'backreference'],
]

const TIMEOUT = { timeout: 60_000 }

describe('regular expressions over the wire run in linear time', () => {
  const wire = useWireServer()
  const people = () => wire().client.db('test').collection<{ _id: number, name: string, tags: string[] }>('people')
  const names = (docs: Document[]) => docs.map((doc) => doc['name'] as string).sort()

  before(async () => {
    await people().insertMany(NAMES.map((name, i) => ({ _id: i, name, tags: [name] })))
  })

  /** Runs `hostile` together with a simple find; prints how long each took. */
  async function race<T>(hostile: () => Promise<T>, diagnostic: (message: string) => void): Promise<T> {
    const started = performance.now()
    const timed = async <R>(run: () => Promise<R>) => {
      const value = await run()
      return { value, ms: performance.now() - started }
    }
    const settle = (run: () => Promise<T>) => run().then((value) => ({ value }), (error: unknown) => ({ error }))
    const [slow, simple] = await Promise.all([timed(() => settle(hostile)), timed(() => people().find({ name: 'alice' }).toArray())])
    diagnostic(`hostile ${slow.ms.toFixed(1)} ms, concurrent simple ${simple.ms.toFixed(1)} ms`)
    assert.deepEqual(names(simple.value), ['alice'])
    if ('error' in slow.value) throw slow.value.error
    return slow.value.value
  }

  for (const [pattern, expected] of CATASTROPHIC) {
    const want = [...expected].sort()
    for (const options of ['', 'i']) {
      it(`matches ${pattern} /${options} with MongoDB's result while another find answers`, TIMEOUT, async (t) => {
        const found = await race(() => people().find({ name: { $regex: pattern, $options: options } }).toArray(), (m) => t.diagnostic(m))
        assert.deepEqual(names(found), want)
      })

      it(`matches ${pattern} /${options} as a BSON regex, in $in, $nin, $all and $not`, TIMEOUT, async () => {
        const regex = new RegExp(pattern, options)
        assert.deepEqual(names(await people().find({ name: regex }).toArray()), want)
        assert.deepEqual(names(await people().find({ name: { $in: ['bob', regex] } }).toArray()), [...new Set([...want, 'bob'])].sort())
        assert.deepEqual(names(await people().find({ name: { $nin: [regex] } }).toArray()), NAMES.filter((n) => !want.includes(n)).sort())
        assert.deepEqual(names(await people().find({ tags: { $all: [regex] } }).toArray()), want)
        assert.deepEqual(names(await people().find({ name: { $not: regex } }).toArray()), NAMES.filter((n) => !want.includes(n)).sort())
      })

      it(`matches ${pattern} /${options} in $match, $regexMatch, $regexFind and $regexFindAll`, TIMEOUT, async (t) => {
        const matched = await race(() => people().aggregate([{ $match: { name: { $regex: pattern, $options: options } } }]).toArray(), (m) => t.diagnostic(m))
        assert.deepEqual(names(matched), want)
        const input = '$name'
        const computed = await people()
          .aggregate([
            {
              $project: {
                name: 1,
                m: { $regexMatch: { input, regex: pattern, options } },
                f: { $regexFind: { input, regex: pattern, options } },
                all: { $regexFindAll: { input, regex: pattern, options } },
              },
            },
          ])
          .toArray()
        assert.deepEqual(names(computed.filter((doc) => doc['m'] === true)), want)
        assert.deepEqual(names(computed.filter((doc) => doc['f'] !== null)), want)
        assert.deepEqual(names(computed.filter((doc) => doc['all'].length > 0)), want)
        const exprMatched = await people()
          .find({ $expr: { $regexMatch: { input, regex: new RegExp(pattern, options) } } })
          .toArray()
        assert.deepEqual(names(exprMatched), want)
      })
    }
  }

  for (const [pattern, feature] of LOOKAROUNDS) {
    for (const options of ['', 'i']) {
      it(`refuses ${pattern} /${options} as an invalid regular expression naming ${feature}`, TIMEOUT, async (t) => {
        const isInvalid = (code: number) => (error: unknown) => {
          assert.ok(error instanceof MongoServerError, String(error))
          assert.equal(error.code, code, error.message)
          assert.match(error.message, new RegExp(feature))
          assert.match(error.message, /not supported/)
          return true
        }
        await assert.rejects(
          race(() => people().find({ name: { $regex: pattern, $options: options } }).toArray(), (m) => t.diagnostic(m)),
          isInvalid(51091),
        )
        await assert.rejects(people().find({ name: { $in: [new RegExp(pattern, options)] } }).toArray(), isInvalid(51091))
        await assert.rejects(people().aggregate([{ $match: { name: { $regex: pattern, $options: options } } }]).toArray(), isInvalid(51091))
        await assert.rejects(
          people()
            .aggregate([{ $project: { m: { $regexMatch: { input: '$name', regex: pattern, options } } } }])
            .toArray(),
          isInvalid(51111),
        )
      })
    }
  }

  it('answers $regexFind and $regexFindAll in the server shape: match, idx, captures', async () => {
    const [doc] = await people()
      .aggregate([
        { $match: { name: 'abab' } },
        {
          $project: {
            _id: 0,
            f: { $regexFind: { input: '$name', regex: '(a)(x)?b' } },
            all: { $regexFindAll: { input: '$name', regex: 'B', options: 'i' } },
            none: { $regexFind: { input: '$name', regex: 'z' } },
          },
        },
      ])
      .toArray()
    assert.deepEqual(doc, {
      f: { match: 'ab', idx: 0, captures: ['a', null] },
      all: [
        { match: 'b', idx: 1, captures: [] },
        { match: 'b', idx: 3, captures: [] },
      ],
      none: null,
    })
  })

  it('maps MongoDB options: m (multiline), s (dot matches newline), x (extended)', async () => {
    const c = wire().client.db('test').collection<{ _id: number, v: string }>('lines')
    await c.insertMany([
      { _id: 1, v: 'one\ntwo' },
      { _id: 2, v: 'two' },
    ])
    const ids = async (filter: Document) => (await c.find(filter).toArray()).map((doc) => doc._id).sort()
    assert.deepEqual(await ids({ v: { $regex: '^two' } }), [2])
    assert.deepEqual(await ids({ v: { $regex: '^two', $options: 'm' } }), [1, 2])
    assert.deepEqual(await ids({ v: { $regex: 'one.two' } }), [])
    assert.deepEqual(await ids({ v: { $regex: 'one.two', $options: 's' } }), [1])
    assert.deepEqual(await ids({ v: { $regex: 't w o # the word\n$', $options: 'x' } }), [1, 2])
    // RE2 syntax JavaScript lacks: inline flags.
    assert.deepEqual(await ids({ v: { $regex: '(?i)^TWO' } }), [2])
  })

  it('refuses an unknown option letter as the server does', async () => {
    const error = await people()
      .find({ name: { $regex: 'a', $options: 'q' } })
      .toArray()
      .catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 51108)
  })

  it("refuses the engine's internal $linearRegex operator as unknown", async () => {
    const error = await people()
      .find({ name: { $linearRegex: { pattern: 'a', options: '' } } } as Document)
      .toArray()
      .catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 2)
    assert.match(error.message, /unknown operator/)
  })
})
