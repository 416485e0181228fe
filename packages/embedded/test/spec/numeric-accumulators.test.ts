import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { Document } from '../../src/index.ts'
import { NUMERIC_TARGETS, useNumericTarget } from './numeric-targets.ts'
import { assertTyped, decimal, double, int, long } from './typed-numbers.ts'

/**
 * `$group`'s numeric accumulators over values of each numeric type, with MongoDB's result types:
 * `$sum` widens as `$add` does (int, then long past 2^31, then double past 2^63; any double makes a
 * double, any decimal a decimal) and skips what is not a number; `$avg` is a double unless a decimal
 * is summed; `$min` and `$max` answer the winning value with its own type. Groups are keyed by value:
 * 1 as an int, a long, a double and a decimal is one group.
 */
type GroupCase = [title: string, values: unknown[], accumulator: Document, expected: unknown]

const CASES: GroupCase[] = [
  ['$sum of ints is int', [int(1), int(2)], { $sum: '$v' }, int(3)],
  ['$sum of ints past 2^31 is long', [int(2147483647), int(1)], { $sum: '$v' }, long(2147483648)],
  ['$sum of longs is long', [long(1), long(2)], { $sum: '$v' }, long(3)],
  ['$sum of a long beyond 2^53 stays exact', [long('9007199254740993'), int(1)], { $sum: '$v' }, long('9007199254740994')],
  ['$sum of longs past 2^63 is double', [long('9000000000000000000'), long('9000000000000000000')], { $sum: '$v' }, double(1.8e19)],
  ['$sum with a double is double', [int(1), double(0.5)], { $sum: '$v' }, double(1.5)],
  ['$sum with a decimal is decimal', [int(1), decimal('0.5')], { $sum: '$v' }, decimal('1.5')],
  ['$sum skips what is not a number', [int(1), 'x', null, true], { $sum: '$v' }, int(1)],
  ['$sum of a constant counts as an int', [long(1), long(2)], { $sum: 1 }, int(2)],
  ['$avg of ints is double', [int(2), int(4)], { $avg: '$v' }, double(3)],
  ['$avg of longs is double', [long(1), long(2)], { $avg: '$v' }, double(1.5)],
  ['$avg with a decimal is decimal', [decimal('1'), int(2)], { $avg: '$v' }, decimal('1.5')],
  ['$min keeps the smallest value\'s type', [int(5), long(3), double(4.5)], { $min: '$v' }, long(3)],
  ['$max keeps the largest value\'s type', [int(5), long(3), double(4.5)], { $max: '$v' }, int(5)],
  ['$max tells a Long beyond 2^53 from the nearest double', [double(9007199254740992), long('9007199254740993')], { $max: '$v' }, long('9007199254740993')],
  ['$min of decimals and doubles', [decimal('0.1'), double(0.1)], { $min: '$v' }, decimal('0.1')],
  ['$stdDevPop of an int and a long is double', [int(1), long(3)], { $stdDevPop: '$v' }, double(1)],
]

for (const target of NUMERIC_TARGETS) {
  describe(`$group accumulators keep MongoDB's types (${target})`, () => {
    const collection = useNumericTarget(target)
    before(async () => {
      let id = 0
      for (const [i, [, values]] of CASES.entries()) for (const v of values) await collection('groups').insertOne({ _id: id++, g: i, v })
      for (const v of [int(1), long(1), double(1), decimal('1.0'), int(2)]) await collection('keys').insertOne({ _id: id++, v })
    })

    for (const [i, [title, , accumulator, expected]] of CASES.entries()) {
      it(title, async () => {
        const [group] = await collection('groups').aggregate([{ $match: { g: i } }, { $group: { _id: null, r: accumulator } }], { promoteValues: false }).toArray()
        assertTyped(group?.['r'], expected)
      })
    }

    it('groups equal numbers of every type together', async () => {
      const groups = await collection('keys').aggregate([{ $group: { _id: '$v', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray()
      assert.deepEqual(groups.map((group) => [Number(group['_id']), group['n']]), [[1, 4], [2, 1]])
    })

    it('an exact sum beside the magnitudes the router checks (_groups)', async () => {
      const pipeline = [{ $match: { g: 3 } }, { $group: { _id: null, s: { $sum: '$v' }, a: { $sum: { $abs: { $cond: [{ $isNumber: '$v' }, '$v', 0] } } } } }]
      const [group] = await collection('groups').aggregate(pipeline, { promoteValues: false }).toArray()
      assertTyped({ s: group?.['s'], a: group?.['a'] }, { s: long('9007199254740994'), a: long('9007199254740994') })
    })
  })
}
