import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { Document } from '../../src/index.ts'
import { NUMERIC_TARGETS, useNumericTarget } from './numeric-targets.ts'
import { assertTyped, decimal, double, int, long } from './typed-numbers.ts'

/**
 * The numeric update operators with MongoDB's type rules ($mul's manual states them; $inc follows the
 * same): int with int stays int unless it overflows (then long), with long it is long, anything with
 * a double is a double, anything with a decimal is a decimal; an int64 overflow is an error (2,
 * BadValue), not a wrapped or rounded number. A missing field takes the argument ($inc), or a zero of
 * its type ($mul). `$min` and `$max` compare values across types and keep the winner's type.
 */
type UpdateCase = [title: string, before: unknown, update: Document, after: unknown]

const CASES: UpdateCase[] = [
  ['$inc int + int stays int', int(1), { $inc: { v: int(2) } }, int(3)],
  ['$inc int + int past 2^31 becomes long', int(2147483647), { $inc: { v: int(1) } }, long(2147483648)],
  ['$inc int + long is long', int(1), { $inc: { v: long(2) } }, long(3)],
  ['$inc long + int stays long', long(1), { $inc: { v: int(2) } }, long(3)],
  ['$inc long beyond 2^53 stays exact', long('9007199254740993'), { $inc: { v: int(1) } }, long('9007199254740994')],
  ['$inc int + double is double', int(1), { $inc: { v: double(0.5) } }, double(1.5)],
  ['$inc long + whole double is double', long(1), { $inc: { v: double(2) } }, double(3)],
  ['$inc double + int stays double', double(10), { $inc: { v: int(1) } }, double(11)],
  ['$inc int + decimal is decimal', int(1), { $inc: { v: decimal('0.1') } }, decimal('1.1')],
  ['$inc double + decimal is decimal', double(0.5), { $inc: { v: decimal('1') } }, decimal('1.5')],
  ['$inc decimal + long stays decimal', decimal('1.25'), { $inc: { v: long(2) } }, decimal('3.25')],
  ['$inc of a missing field sets the argument, its type kept', undefined, { $inc: { v: long(5) } }, long(5)],
  ['$mul int * int stays int', int(3), { $mul: { v: int(4) } }, int(12)],
  ['$mul int * int past 2^31 becomes long', int(65536), { $mul: { v: int(65536) } }, long(4294967296)],
  ['$mul long * int stays long', long(3), { $mul: { v: int(2) } }, long(6)],
  ['$mul int * double is double', int(2), { $mul: { v: double(1.5) } }, double(3)],
  ['$mul decimal * int stays decimal', decimal('1.5'), { $mul: { v: int(2) } }, decimal('3.0')],
  ['$mul of a missing field is a zero of the multiplier\'s type (long)', undefined, { $mul: { v: long(5) } }, long(0)],
  ['$mul of a missing field is a zero of the multiplier\'s type (double)', undefined, { $mul: { v: double(2.5) } }, double(0)],
  ['$min takes a smaller value of another type, with its type', int(5), { $min: { v: long(3) } }, long(3)],
  ['$min keeps the value when equal across types', int(5), { $min: { v: double(5) } }, int(5)],
  ['$max compares a Long beyond 2^53 exactly', long('9007199254740993'), { $max: { v: double(9007199254740992) } }, long('9007199254740993')],
  ['$max takes a larger decimal', double(1.5), { $max: { v: decimal('1.6') } }, decimal('1.6')],
  ['$set keeps the type it is given', int(1), { $set: { v: double(2) } }, double(2)],
]

const ERRORS: [title: string, before: unknown, update: Document, code: number][] = [
  ['$inc past the largest long is an error', long('9223372036854775807'), { $inc: { v: int(1) } }, 2],
  ['$mul past the largest long is an error', long('4611686018427387904'), { $mul: { v: int(2) } }, 2],
]

for (const target of NUMERIC_TARGETS) {
  describe(`numeric update operators keep MongoDB's types (${target})`, () => {
    const collection = useNumericTarget(target)
    const start = (i: number, value: unknown) => collection('updates').insertOne(value === undefined ? { _id: i } : { _id: i, v: value })
    before(async () => {
      for (const [i, [, value]] of CASES.entries()) await start(i, value)
      for (const [i, [, value]] of ERRORS.entries()) await start(100 + i, value)
    })

    for (const [i, [title, , update, expected]] of CASES.entries()) {
      it(title, async () => {
        await collection('updates').updateOne({ _id: i }, update)
        const doc = await collection('updates').findOne({ _id: i }, { promoteValues: false })
        assertTyped(doc?.['v'], expected)
      })
    }

    for (const [i, [title, value, update, code]] of ERRORS.entries()) {
      it(title, async () => {
        await assert.rejects(collection('updates').updateOne({ _id: 100 + i }, update), { code })
        const doc = await collection('updates').findOne({ _id: 100 + i }, { promoteValues: false })
        assertTyped(doc?.['v'], value)
      })
    }

    it('an update pipeline computes with the same types', async () => {
      await collection('pipeline').insertOne({ _id: 1, n: long(41), x: int(2) })
      await collection('pipeline').updateOne({ _id: 1 }, [{ $set: { n: { $add: ['$n', 1] }, y: { $multiply: ['$x', 1.5] } } }])
      const doc = await collection('pipeline').findOne({ _id: 1 }, { promoteValues: false })
      assertTyped({ n: doc?.['n'], y: doc?.['y'] }, { n: long(42), y: double(3) })
    })
  })
}
