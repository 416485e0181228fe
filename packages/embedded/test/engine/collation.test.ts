import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { type CollationOptions, MongoServerError } from 'mongodb'
import { ENGINES, useEngine } from './engines.ts'

const CASELESS = { locale: 'en', strength: 2 } as const

async function refusal(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`)
  return error
}

for (const kind of ENGINES) {
  describe(`collation (${kind})`, () => {
    const db = useEngine(kind)
    const words = () => db().collection('words')

    before(async () => {
      for (const [_id, x] of [
        [1, 'ping'],
        [2, 'PING'],
        [3, 'pong'],
        [4, 'Péng'],
        [5, 'b'],
        [6, 'B'],
        [7, 'a10'],
        [8, 'a2'],
      ] as const) {
        await words().insertOne({ _id, x, tags: [x], nested: { x } })
      }
    })

    const ids = (docs: { _id?: unknown }[]) => docs.map((doc) => doc._id)

    it('matches equality, $ne, $in and $nin under strength 2, and binary without a collation', async () => {
      assert.deepEqual(ids(await words().find({ x: 'PING' }).toArray()), [2])
      assert.deepEqual(ids(await words().find({ x: 'PING' }, { collation: CASELESS }).toArray()), [1, 2])
      assert.deepEqual(ids(await words().find({ x: { $eq: 'ping' } }, { collation: CASELESS }).toArray()), [1, 2])
      assert.deepEqual(ids(await words().find({ x: { $in: ['PONG', 'A2'] } }, { collation: CASELESS }).toArray()), [3, 8])
      assert.deepEqual(ids(await words().find({ x: { $nin: ['PING', 'pong', 'b', 'a10', 'a2'] } }, { collation: CASELESS }).toArray()), [4])
      assert.equal((await words().find({ x: { $ne: 'ping' } }, { collation: CASELESS }).toArray()).length, 6)
      // Strength 2 still tells accents apart; strength 1 does not.
      assert.deepEqual(ids(await words().find({ x: 'peng' }, { collation: CASELESS }).toArray()), [])
      assert.deepEqual(ids(await words().find({ x: 'peng' }, { collation: { locale: 'en', strength: 1 } }).toArray()), [4])
    })

    it('reaches strings inside arrays, embedded documents and $elemMatch', async () => {
      assert.deepEqual(ids(await words().find({ tags: 'PONG' }, { collation: CASELESS }).toArray()), [3])
      assert.deepEqual(ids(await words().find({ 'nested.x': 'PONG' }, { collation: CASELESS }).toArray()), [3])
      assert.deepEqual(ids(await words().find({ nested: { x: 'PONG' } }, { collation: CASELESS }).toArray()), [3])
      assert.deepEqual(ids(await words().find({ tags: { $elemMatch: { $eq: 'PONG' } } }, { collation: CASELESS }).toArray()), [3])
      assert.deepEqual(ids(await words().find({ tags: { $all: ['PONG'] } }, { collation: CASELESS }).toArray()), [3])
    })

    it('compares ranges in the locale order, and numerically with numericOrdering', async () => {
      // Binary: 'B' (0x42) < 'a10'; in English order every 'a…' comes before 'b' and 'B'.
      assert.deepEqual(ids(await words().find({ x: { $lt: 'b' } }, { collation: { locale: 'en' } }).toArray()), [7, 8])
      assert.deepEqual(ids(await words().find({ x: { $gt: 'a9', $lt: 'b' } }, { collation: { locale: 'en', numericOrdering: true } }).toArray()), [7])
    })

    it('sorts in the locale order, with caseFirst and numericOrdering', async () => {
      const sorted = async (collation: CollationOptions) => (await words().find({ _id: { $gte: 5 } }, { sort: { x: 1 }, collation }).toArray()).map((doc) => doc['x'])
      assert.deepEqual((await words().find({ _id: { $gte: 5 } }, { sort: { x: 1 } }).toArray()).map((doc) => doc['x']), ['B', 'a10', 'a2', 'b'])
      assert.deepEqual(await sorted({ locale: 'en' }), ['a10', 'a2', 'b', 'B'])
      assert.deepEqual(await sorted({ locale: 'en', caseFirst: 'upper' }), ['a10', 'a2', 'B', 'b'])
      assert.deepEqual(await sorted({ locale: 'en', numericOrdering: true }), ['a2', 'a10', 'b', 'B'])
      assert.deepEqual(await sorted({ locale: 'simple' }), ['B', 'a10', 'a2', 'b'])
    })

    it('counts, and answers distinct with values equal under the collation once (the first found)', async () => {
      assert.equal(await words().countDocuments({ x: 'ping' }, { collation: CASELESS }), 2)
      assert.deepEqual(await words().distinct('x', { _id: { $lte: 3 } }, { collation: CASELESS }), ['ping', 'pong'])
      assert.deepEqual(await words().distinct('x', { _id: { $lte: 3 } }), ['PING', 'ping', 'pong'])
    })

    it('does not let a unique index lookup bypass the collation', async () => {
      const users = db().collection('users')
      await users.createIndex({ email: 1 }, { unique: true })
      await users.insertOne({ _id: 1, email: 'ann@example.com' })
      assert.deepEqual(ids(await users.find({ email: 'ANN@example.com' }, { collation: CASELESS }).toArray()), [1])
      assert.deepEqual(ids(await users.find({ _id: 1, email: 'ANN@example.com' }, { collation: CASELESS }).toArray()), [1])
    })

    it('updates, replaces and deletes what the collation matches', async () => {
      const c = db().collection('writes')
      for (const [_id, x] of [
        [1, 'ping'],
        [2, 'PING'],
        [3, 'pong'],
      ] as const) {
        await c.insertOne({ _id, x })
      }
      assert.deepEqual(await c.updateMany({ x: 'Ping' }, { $set: { seen: true } }, { collation: CASELESS }), { matchedCount: 2, modifiedCount: 2 })
      assert.deepEqual(await c.replaceOne({ x: 'PONG' }, { x: 'pong', replaced: true }, { collation: CASELESS }), { matchedCount: 1, modifiedCount: 1 })
      const before = await c.findOneAndUpdate({ x: 'PING' }, { $set: { last: true } }, { sort: { _id: -1 }, collation: CASELESS })
      assert.equal(before?.['_id'], 2)
      assert.equal((await c.findOneAndDelete({ x: 'PONG' }, { collation: CASELESS }))?.['_id'], 3)
      assert.deepEqual(await c.deleteMany({ x: 'PiNg' }, { collation: CASELESS }), { deletedCount: 2 })
      assert.equal(await c.countDocuments({}), 0)
    })

    it('applies an aggregate collation to $match, $sort and comparison expressions', async () => {
      const docs = await words()
        .aggregate([{ $match: { x: { $in: ['PING', 'B'] } } }, { $sort: { x: 1, _id: 1 } }, { $project: { x: 1, isPing: { $eq: ['$x', 'Ping'] } } }], { collation: CASELESS })
        .toArray()
      assert.deepEqual(docs, [
        { _id: 5, x: 'b', isPing: false },
        { _id: 6, x: 'B', isPing: false },
        { _id: 1, x: 'ping', isPing: true },
        { _id: 2, x: 'PING', isPing: true },
      ])
      const counted = await words().aggregate([{ $match: { x: 'pInG' } }, { $group: { _id: null, n: { $sum: 1 } } }], { collation: CASELESS }).toArray()
      assert.deepEqual(counted, [{ _id: null, n: 2 }])
    })

    it('refuses what would compare strings without the collation, naming it', async () => {
      const grouped = await refusal(words().aggregate([{ $group: { _id: '$x' } }], { collation: CASELESS }).toArray())
      assert.equal(grouped.code, 2)
      assert.match(grouped.message, /\$group by a computed _id with a non-simple collation/)
      const max = await refusal(words().find({ $expr: { $eq: [{ $max: '$tags' }, 'PING'] } }, { collation: CASELESS }).toArray())
      assert.match(max.message, /'\$max' with a non-simple collation/)
      const pull = await refusal(words().updateOne({ _id: 1 }, { $pull: { tags: 'PING' } }, { collation: CASELESS }))
      assert.match(pull.message, /\$pull of a string with a non-simple collation/)
      const positional = await refusal(words().updateOne({ tags: 'PING' }, { $set: { 'tags.$': 'x' } }, { collation: CASELESS }))
      assert.match(positional.message, /positional operator in 'tags\.\$'/)
    })

    it('validates the collation document with the server codes and messages', async () => {
      const cases: [unknown, number, string | RegExp][] = [
        ['en', 14, "BSON field 'collation' is the wrong type 'string', expected type 'object'"],
        [{ strength: 2 }, 4, 'Missing expected field "locale"'],
        [{ locale: 3 }, 14, '"locale" had the wrong type. Expected string, found int'],
        [{ locale: 'xx' }, 2, 'Field \'locale\' is invalid in: { locale: "xx" }'],
        [{ locale: 'en-US' }, 2, 'Field \'locale\' is invalid in: { locale: "en-US" }'],
        [{ locale: '' }, 2, 'Field \'locale\' cannot be the empty string in: { locale: "" }'],
        [{ locale: 'simple', strength: 2 }, 9, 'If locale=simple, no other fields should be present in: { locale: "simple", strength: 2 }'],
        [{ locale: 'en', strength: 6 }, 9, "Field 'strength' must be an integer 1 through 5. Got: 6"],
        [{ locale: 'en', strength: '2' }, 14, 'Expected field "strength" to have numeric type, but found string'],
        [{ locale: 'en', caseLevel: 1 }, 14, '"caseLevel" had the wrong type. Expected bool, found int'],
        [{ locale: 'en', caseFirst: 'first' }, 9, "Field 'caseFirst' must be 'upper', 'lower', or 'off'. Got: first"],
        [{ locale: 'en', alternate: 'none' }, 9, "Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: none"],
        [{ locale: 'en', colour: 'blue' }, 9, 'Collation spec contains unknown field. Collation spec: { locale: "en", colour: "blue" }'],
        [{ locale: 'en', strength: 1, backwards: true }, 2, "'backwards' is invalid with 'strength' of 1 in: { locale: \"en\", strength: 1, backwards: true }"],
        [{ locale: 'en', strength: 2, caseFirst: 'upper' }, 2, /^'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: /],
        [{ locale: 'en', version: '1.0' }, 161, /^Requested collation version 1\.0 but the only available collator version was 57\.1/],
      ]
      for (const [collation, code, message] of cases) {
        const error = await refusal(words().find({ x: 'ping' }, { collation } as never).toArray())
        assert.equal(error.code, code, JSON.stringify(collation))
        if (typeof message === 'string') assert.equal(error.message, message)
        else assert.match(error.message, message)
      }
    })

    it('validates the collation of every operation that takes one', async () => {
      const collation = { locale: 'xx' }
      const operations: Promise<unknown>[] = [
        words().aggregate([{ $match: { x: 'ping' } }], { collation }).toArray(),
        words().countDocuments({}, { collation }),
        words().distinct('x', {}, { collation }),
        words().updateOne({}, { $set: { y: 1 } }, { collation }),
        words().replaceOne({}, { y: 1 }, { collation }),
        words().deleteOne({}, { collation }),
        words().deleteMany({}, { collation }),
        words().findOneAndUpdate({}, { $set: { y: 1 } }, { collation }),
        words().findOneAndDelete({}, { collation }),
      ]
      for (const operation of operations) assert.equal((await refusal(operation)).code, 2)
      assert.equal(await words().countDocuments({ y: 1 }), 0)
    })

    it('refuses, naming the field and value, the options Intl.Collator cannot express faithfully', async () => {
      const cases: [CollationOptions, RegExp][] = [
        [{ locale: 'en', strength: 2, caseLevel: true }, /^collation caseLevel true with strength 2 is not supported by the embedded engine/],
        [{ locale: 'en', backwards: true }, /^collation backwards true for locale "en" is not supported/],
        [{ locale: 'en', alternate: 'shifted', maxVariable: 'space' }, /^collation maxVariable "space" with alternate 'shifted' is not supported/],
        [{ locale: 'en', alternate: 'shifted', strength: 4 }, /^collation strength 4 for locale "en" with alternate 'shifted' is not supported/],
        [{ locale: 'sv@collation=search' }, /^collation locale "sv@collation=search" is not supported/],
      ]
      for (const [collation, message] of cases) {
        const error = await refusal(words().find({ x: 'ping' }, { collation }).toArray())
        assert.equal(error.code, 2)
        assert.match(error.message, message)
      }
    })

    it('takes caseLevel at strength 1, shifted punctuation, backwards French and the identical strength', async () => {
      const c = db().collection('levels')
      for (const [_id, x] of [
        [1, 'cote'],
        [2, 'Cote'],
        [3, 'côte'],
        [4, 'co-te'],
      ] as const) {
        await c.insertOne({ _id, x })
      }
      const match = async (x: string, collation: CollationOptions) => ids(await c.find({ x }, { collation }).toArray())
      assert.deepEqual(await match('cote', { locale: 'en', strength: 1, caseLevel: true }), [1, 3])
      assert.deepEqual(await match('cote', { locale: 'en', strength: 1, alternate: 'shifted' }), [1, 2, 3, 4])
      assert.deepEqual(await match('cote', { locale: 'en', strength: 4, maxVariable: 'space' }), [1])
      assert.deepEqual(await match('cote', { locale: 'en', strength: 5 }), [1])
      assert.deepEqual(await match('cote', { locale: 'fr_CA', strength: 2, backwards: true }), [1, 2])
      assert.deepEqual(await match('cote', { locale: 'de@collation=phonebook', strength: 2 }), [1, 2])
    })
  })
}
