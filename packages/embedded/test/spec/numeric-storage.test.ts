import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { Long } from 'mongodb'
import type { Document } from '../../src/index.ts'
import { NUMERIC_TARGETS, useNumericTarget } from './numeric-targets.ts'
import { assertTyped, decimal, double, int, long } from './typed-numbers.ts'

/**
 * Int32, Long, Double and Decimal128 kept as written (MongoDB keeps every numeric BSON type), in the
 * engine in memory, on disk and through the wire: stored and read back, queried by type (`$type`)
 * and by value across types, sorted by value (a Long beyond 2^53 exactly), and still of their type
 * after an update of another field rewrote the document.
 */
const EVERY_TYPE: Document = {
  _id: 1,
  i: int(2022),
  l: long(2022),
  d: double(10),
  f: double(1.5),
  m: decimal('1.10'),
  big: long('9007199254740993'),
  nested: { l: long(5), list: [int(1), long(2), double(3), decimal('4')] },
}

/** One document per numeric type and value, for queries and sorts. */
const VALUES: [string, unknown][] = [
  ['int 1', int(1)],
  ['long 1', long(1)],
  ['double 1', double(1)],
  ['decimal 1.0', decimal('1.0')],
  ['double 1.5', double(1.5)],
  ['decimal 0.1', decimal('0.1')],
  ['double 0.1', double(0.1)],
  ['long 2^53', long('9007199254740992')],
  ['long 2^53+1', long('9007199254740993')],
  ['double 2^53', double(9007199254740992)],
  ['int -3', int(-3)],
  ['long -2^62', long('-4611686018427387904')],
  ['string 1', '1'],
]

for (const target of NUMERIC_TARGETS) {
  describe(`numeric types are kept (${target})`, () => {
    const collection = useNumericTarget(target)
    before(async () => {
      await collection('every').insertOne({ ...EVERY_TYPE })
      for (const [id, a] of VALUES) await collection('values').insertOne({ _id: id, a })
    })

    it('reads each type back as written (promoteValues: false)', async () => {
      assertTyped(await collection('every').findOne({ _id: 1 }, { promoteValues: false }), { ...EVERY_TYPE, _id: int(1) })
    })

    it('promotes as the driver does by default: Int32 and Double as numbers, a Long within 2^53 as a number', async () => {
      const doc = await collection('every').findOne({ _id: 1 })
      assert.deepEqual({ i: doc?.['i'], l: doc?.['l'], d: doc?.['d'], f: doc?.['f'] }, { i: 2022, l: 2022, d: 10, f: 1.5 })
      assert.ok(doc?.['big'] instanceof Long && doc['big'].toString() === '9007199254740993')
      const longs = await collection('every').findOne({ _id: 1 }, { promoteLongs: false })
      assert.ok(longs?.['l'] instanceof Long && longs['i'] === 2022)
    })

    it('keeps every type through an update of another field', async () => {
      await collection('every').updateOne({ _id: 1 }, { $set: { other: 'x' } })
      assertTyped(await collection('every').findOne({ _id: 1 }, { promoteValues: false }), { ...EVERY_TYPE, _id: int(1), other: 'x' })
    })

    const ids = async (filter: Document, options: Document = {}) => (await collection('values').find(filter, options).toArray()).map((doc) => doc['_id'])
    const sortedIds = async (filter: Document) => (await ids(filter)).sort()

    it('$type tells each numeric type apart, by name and by number', async () => {
      assert.deepEqual(await sortedIds({ a: { $type: 'int' } }), ['int -3', 'int 1'])
      assert.deepEqual(await sortedIds({ a: { $type: 16 } }), ['int -3', 'int 1'])
      assert.deepEqual(await sortedIds({ a: { $type: 'long' } }), ['long -2^62', 'long 1', 'long 2^53', 'long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: { $type: 18 } }), ['long -2^62', 'long 1', 'long 2^53', 'long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: { $type: 'double' } }), ['double 0.1', 'double 1', 'double 1.5', 'double 2^53'])
      assert.deepEqual(await sortedIds({ a: { $type: 1 } }), ['double 0.1', 'double 1', 'double 1.5', 'double 2^53'])
      assert.deepEqual(await sortedIds({ a: { $type: 'decimal' } }), ['decimal 0.1', 'decimal 1.0'])
      assert.deepEqual(await sortedIds({ a: { $type: 19 } }), ['decimal 0.1', 'decimal 1.0'])
      assert.equal((await ids({ a: { $type: 'number' } })).length, VALUES.length - 1)
      assert.deepEqual(await sortedIds({ 'nested.list': { $type: 'decimal' } }), [])
    })

    it('$type in an expression names each type', async () => {
      const types = await collection('values').aggregate([{ $match: { _id: { $in: ['int 1', 'long 1', 'double 1', 'decimal 1.0'] } } }, { $project: { t: { $type: '$a' } } }, { $sort: { t: 1 } }]).toArray()
      assert.deepEqual(types.map((doc) => doc['t']), ['decimal', 'double', 'int', 'long'])
    })

    it('equality matches equal values of every type, and only equal ones', async () => {
      const ones = ['decimal 1.0', 'double 1', 'int 1', 'long 1']
      for (const one of [1, int(1), long(1), double(1), decimal('1'), decimal('1.000')]) assert.deepEqual(await sortedIds({ a: one }), ones, `a: ${String(one)}`)
      assert.deepEqual(await sortedIds({ a: { $in: [long(1), decimal('1.5')] } }), ['decimal 1.0', 'double 1', 'double 1.5', 'int 1', 'long 1'])
      assert.deepEqual(await sortedIds({ a: long('9007199254740993') }), ['long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: long('9007199254740992') }), ['double 2^53', 'long 2^53'])
      assert.deepEqual(await sortedIds({ a: decimal('0.1') }), ['decimal 0.1'])
      assert.deepEqual(await sortedIds({ a: 0.1 }), ['double 0.1'])
    })

    it('ranges compare values exactly across types, a Long beyond 2^53 included', async () => {
      assert.deepEqual(await sortedIds({ a: { $gt: long('9007199254740992') } }), ['long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: { $gt: 9007199254740992 } }), ['long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: { $gte: decimal('9007199254740993') } }), ['long 2^53+1'])
      assert.deepEqual(await sortedIds({ a: { $gt: decimal('0.1'), $lt: 1 } }), ['double 0.1'])
      assert.deepEqual(await sortedIds({ a: { $lt: int(0) } }), ['int -3', 'long -2^62'])
    })

    it('sorts by value across types, exactly', async () => {
      const order = await ids({ a: { $type: 'number' } }, { sort: { a: 1, _id: 1 } })
      assert.deepEqual(order, [
        'long -2^62', 'int -3', 'decimal 0.1', 'double 0.1', 'decimal 1.0', 'double 1', 'int 1', 'long 1', 'double 1.5', 'double 2^53', 'long 2^53', 'long 2^53+1',
      ])
    })

    it('a numeric _id equals the same value of another type', async () => {
      await collection('ids').insertOne({ _id: int(7), n: 1 })
      await assert.rejects(collection('ids').insertOne({ _id: long(7) }), { code: 11000 })
      await assert.rejects(collection('ids').insertOne({ _id: decimal('7.0') }), { code: 11000 })
      assertTyped(await collection('ids').findOne({ _id: long(7) }, { promoteValues: false }), { _id: int(7), n: int(1) })
    })

    it('distinct answers one value per number, whatever its type', async () => {
      const values = await collection('values').distinct('a', { _id: { $in: ['int 1', 'long 1', 'double 1', 'double 1.5'] } })
      assert.deepEqual(values.map(Number).sort(), [1, 1.5])
    })
  })
}
