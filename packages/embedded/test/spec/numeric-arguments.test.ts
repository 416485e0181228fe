import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { NUMERIC_TARGETS, useNumericTarget } from './numeric-targets.ts'
import { assertTyped, decimal, double, int, long } from './typed-numbers.ts'

/**
 * Where MongoDB reads a count, an index, a flag or a join key by its value, a number of any BSON type
 * serves: clients of other languages send Longs and doubles (`limit: 1L`, `{ a: 0.0 }`), and a field a
 * pipeline reads may hold either. The engine keeps those types (numeric-types tests) and still reads
 * them as MongoDB does.
 */
for (const target of NUMERIC_TARGETS) {
  describe(`numbers of any type as counts, indexes, flags and keys (${target})`, () => {
    const collection = useNumericTarget(target)
    before(async () => {
      await collection('items').insertOne({ _id: 1, list: ['a', 'b', 'c'], at: long(1), n: double(2), secret: 's', owner: int(7) })
      await collection('items').insertOne({ _id: 2, list: ['x'], at: int(0), n: int(1), secret: 't', owner: long(8) })
      await collection('owners').insertOne({ _id: long(7), name: 'seven' })
      await collection('owners').insertOne({ _id: double(8), name: 'eight' })
    })

    it('a projection flag, a sort direction and a limit of any numeric type', async () => {
      const docs = await collection('items').find({}, { projection: { secret: double(0), list: long(0) }, sort: { _id: double(-1) }, limit: 1 }).toArray()
      assert.deepEqual(docs.map((doc) => Object.keys(doc).sort()), [['_id', 'at', 'n', 'owner']])
      assert.equal(docs[0]?.['_id'], 2)
      const staged = await collection('items').aggregate([{ $sort: { _id: long(1) } }, { $skip: long(1) }, { $limit: double(1) }, { $project: { _id: int(1), n: decimal('1') } }]).toArray()
      assert.deepEqual(staged, [{ _id: 2, n: 1 }])
    })

    it('an array index, a count and a position held as a Long or a Double', async () => {
      const [doc] = await collection('items').aggregate([
        { $match: { _id: 1 } },
        { $project: { _id: 0, picked: { $arrayElemAt: ['$list', '$at'] }, first: { $slice: ['$list', '$n'] }, part: { $substrCP: ['abcdef', '$at', '$n'] } } },
      ]).toArray()
      assert.deepEqual(doc, { picked: 'b', first: ['a', 'b'], part: 'bc' })
    })

    it('$lookup joins an int to a Long and a Long to a Double of the same value', async () => {
      const docs = await collection('items').aggregate([{ $lookup: { from: 'owners', localField: 'owner', foreignField: '_id', as: 'owners' } }, { $sort: { _id: 1 } }], { promoteValues: false }).toArray()
      assert.deepEqual(docs.map((doc) => (doc['owners'] as { name: string }[]).map((owner) => owner.name)), [['seven'], ['eight']])
      const [eight] = (docs[1]?.['owners'] ?? []) as { _id: unknown }[]
      assertTyped(eight?._id, double(8))
    })

    it('$indexOfArray finds a number of another type', async () => {
      const [doc] = await collection('items').aggregate([{ $match: { _id: 1 } }, { $project: { _id: 0, i: { $indexOfArray: [[int(1), long(2), double(3)], '$n'] } } }]).toArray()
      assert.deepEqual(doc, { i: 1 })
    })
  })
}
