import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { Document } from '../../src/index.ts'
import { NUMERIC_TARGETS, useNumericTarget } from './numeric-targets.ts'
import { assertTyped, decimal, double, int, long } from './typed-numbers.ts'

/**
 * Every arithmetic and type expression operator over each numeric BSON type, with the result type
 * MongoDB gives: the operands are fields of a stored document (`$a`, `$b`), read by the operator as
 * the engine holds them. The widest operand type wins (int < long < double < decimal); an int result
 * past 2^31 widens to long, a long one past 2^63 to double ($add, $subtract, $multiply); `$divide`,
 * `$sqrt`, `$exp`, `$ln`, `$log`, `$log10` and `$avg` answer a double unless a decimal is involved;
 * `$abs`, `$ceil`, `$floor`, `$round` and `$trunc` keep their operand's type; a double becomes a
 * decimal of 15 significant digits (`$toDecimal: 2.5` is 2.50000000000000, as the manual shows).
 */
type ExpressionCase = [title: string, operands: Document, expression: unknown, expected: unknown]

const a = '$a'
const b = '$b'

const ARITHMETIC: ExpressionCase[] = [
  ['$add int + int is int', { a: int(2), b: int(3) }, { $add: [a, b] }, int(5)],
  ['$add int + int past 2^31 is long', { a: int(2000000000), b: int(2000000000) }, { $add: [a, b] }, long(4000000000)],
  ['$add int + long is long', { a: int(2), b: long(3) }, { $add: [a, b] }, long(5)],
  ['$add long beyond 2^53 stays exact', { a: long('9007199254740993'), b: int(1) }, { $add: [a, b] }, long('9007199254740994')],
  ['$add long + long past 2^63 is double', { a: long('9000000000000000000'), b: long('9000000000000000000') }, { $add: [a, b] }, double(1.8e19)],
  ['$add int + double is double', { a: int(1), b: double(0.5) }, { $add: [a, b] }, double(1.5)],
  ['$add long + whole double is double', { a: long(1), b: double(2) }, { $add: [a, b] }, double(3)],
  ['$add int + decimal is decimal', { a: int(1), b: decimal('0.1') }, { $add: [a, b] }, decimal('1.1')],
  ['$add double + decimal is decimal', { a: double(0.5), b: decimal('1') }, { $add: [a, b] }, decimal('1.5')],
  ['$add a date and a long is a date', { a: new Date(1000), b: long(500) }, { $add: [a, b] }, new Date(1500)],
  ['$subtract int - int is int', { a: int(5), b: int(7) }, { $subtract: [a, b] }, int(-2)],
  ['$subtract int - int past -2^31 is long', { a: int(-2000000000), b: int(2000000000) }, { $subtract: [a, b] }, long(-4000000000)],
  ['$subtract long - int is long', { a: long(5), b: int(7) }, { $subtract: [a, b] }, long(-2)],
  ['$subtract decimal - double is decimal', { a: decimal('2.5'), b: double(0.5) }, { $subtract: [a, b] }, decimal('2')],
  ['$subtract two dates is a long of milliseconds', { a: new Date(5000), b: new Date(2000) }, { $subtract: [a, b] }, long(3000)],
  ['$multiply int * int is int', { a: int(6), b: int(7) }, { $multiply: [a, b] }, int(42)],
  ['$multiply int * int past 2^31 is long', { a: int(65536), b: int(65536) }, { $multiply: [a, b] }, long(4294967296)],
  ['$multiply long * long past 2^63 is double', { a: long('9000000000000000000'), b: long(-9) }, { $multiply: [a, b] }, double(-8.1e19)],
  ['$multiply int * double is double', { a: int(2), b: double(1.5) }, { $multiply: [a, b] }, double(3)],
  ['$multiply decimal * int is decimal', { a: decimal('1.5'), b: int(2) }, { $multiply: [a, b] }, decimal('3')],
  ['$divide int / int is double', { a: int(6), b: int(3) }, { $divide: [a, b] }, double(2)],
  ['$divide long / int is double', { a: long(7), b: int(2) }, { $divide: [a, b] }, double(3.5)],
  ['$divide decimal / int is decimal', { a: decimal('1'), b: int(4) }, { $divide: [a, b] }, decimal('0.25')],
  ['$divide double / decimal is decimal', { a: double(3), b: decimal('2') }, { $divide: [a, b] }, decimal('1.5')],
  ['$mod int % int is int', { a: int(7), b: int(3) }, { $mod: [a, b] }, int(1)],
  ['$mod keeps the dividend\'s sign', { a: int(-7), b: int(3) }, { $mod: [a, b] }, int(-1)],
  ['$mod long % int is long', { a: long('9007199254740993'), b: int(10) }, { $mod: [a, b] }, long(3)],
  ['$mod double % int is double', { a: double(7.5), b: int(2) }, { $mod: [a, b] }, double(1.5)],
  ['$mod int % whole double is int', { a: int(7), b: double(2) }, { $mod: [a, b] }, int(1)],
  ['$mod decimal % int is decimal', { a: decimal('7.5'), b: int(2) }, { $mod: [a, b] }, decimal('1.5')],
  ['$abs int is int', { a: int(-5) }, { $abs: a }, int(5)],
  ['$abs of the smallest int is long', { a: int(-2147483648) }, { $abs: a }, long(2147483648)],
  ['$abs long is long', { a: long(-5) }, { $abs: a }, long(5)],
  ['$abs double is double', { a: double(-2) }, { $abs: a }, double(2)],
  ['$abs decimal is decimal', { a: decimal('-1.5') }, { $abs: a }, decimal('1.5')],
  ['$ceil int is int', { a: int(5) }, { $ceil: a }, int(5)],
  ['$ceil long is long', { a: long(5) }, { $ceil: a }, long(5)],
  ['$ceil double is double', { a: double(2.5) }, { $ceil: a }, double(3)],
  ['$ceil decimal is decimal', { a: decimal('2.5') }, { $ceil: a }, decimal('3')],
  ['$floor double is double', { a: double(-2.5) }, { $floor: a }, double(-3)],
  ['$floor decimal is decimal', { a: decimal('-2.5') }, { $floor: a }, decimal('-3')],
  ['$round double rounds half to even', { a: double(2.5) }, { $round: [a, 0] }, double(2)],
  ['$round double at a place', { a: double(1.23456) }, { $round: [a, 2] }, double(1.23)],
  ['$round int at a negative place is int', { a: int(1250) }, { $round: [a, -2] }, int(1200)],
  ['$round long is long', { a: long(1234) }, { $round: [a, -1] }, long(1230)],
  ['$round decimal is decimal', { a: decimal('2.345') }, { $round: [a, 2] }, decimal('2.34')],
  ['$trunc double is double', { a: double(-2.7) }, { $trunc: a }, double(-2)],
  ['$trunc int is int', { a: int(1299) }, { $trunc: [a, -2] }, int(1200)],
  ['$trunc long is long', { a: long(5) }, { $trunc: a }, long(5)],
  ['$trunc decimal at a place is decimal', { a: decimal('2.77') }, { $trunc: [a, 1] }, decimal('2.7')],
  ['$pow int ^ int is int', { a: int(2), b: int(10) }, { $pow: [a, b] }, int(1024)],
  ['$pow int ^ int past 2^31 is long', { a: int(2), b: int(40) }, { $pow: [a, b] }, long(1099511627776)],
  ['$pow int ^ negative int is double', { a: int(2), b: int(-1) }, { $pow: [a, b] }, double(0.5)],
  ['$pow long ^ int is long', { a: long(3), b: int(3) }, { $pow: [a, b] }, long(27)],
  ['$pow double ^ int is double', { a: double(2), b: int(2) }, { $pow: [a, b] }, double(4)],
  ['$pow decimal ^ int is decimal', { a: decimal('1.5'), b: int(2) }, { $pow: [a, b] }, decimal('2.25')],
  ['$sqrt int is double', { a: int(16) }, { $sqrt: a }, double(4)],
  ['$sqrt long is double', { a: long(2) }, { $sqrt: a }, double(Math.SQRT2)],
  ['$sqrt decimal is decimal', { a: decimal('2.25') }, { $sqrt: a }, decimal('1.5')],
  ['$exp int is double', { a: int(0) }, { $exp: a }, double(1)],
  ['$ln int is double', { a: int(1) }, { $ln: a }, double(0)],
  ['$log10 long is double', { a: long(1000) }, { $log10: a }, double(3)],
  ['$log10 decimal is decimal', { a: decimal('100') }, { $log10: a }, decimal('2')],
  ['$log int base int is double', { a: int(8), b: int(2) }, { $log: [a, b] }, double(3)],
]

const TYPES: ExpressionCase[] = [
  ['$isNumber int', { a: int(1) }, { $isNumber: a }, true],
  ['$isNumber long', { a: long(1) }, { $isNumber: a }, true],
  ['$isNumber double', { a: double(1) }, { $isNumber: a }, true],
  ['$isNumber decimal', { a: decimal('1') }, { $isNumber: a }, true],
  ['$isNumber string', { a: '1' }, { $isNumber: a }, false],
  ['$toInt double truncates', { a: double(2.9) }, { $toInt: a }, int(2)],
  ['$toInt long', { a: long(5) }, { $toInt: a }, int(5)],
  ['$toInt decimal truncates', { a: decimal('-7.9') }, { $toInt: a }, int(-7)],
  ['$toInt string', { a: '12' }, { $toInt: a }, int(12)],
  ['$toLong int', { a: int(5) }, { $toLong: a }, long(5)],
  ['$toLong double truncates', { a: double(2.9) }, { $toLong: a }, long(2)],
  ['$toLong decimal beyond 2^53 is exact', { a: decimal('9007199254740993') }, { $toLong: a }, long('9007199254740993')],
  ['$toLong string beyond 2^53 is exact', { a: '9007199254740993' }, { $toLong: a }, long('9007199254740993')],
  ['$toLong date is its milliseconds', { a: new Date(1500) }, { $toLong: a }, long(1500)],
  ['$toDouble int', { a: int(5) }, { $toDouble: a }, double(5)],
  ['$toDouble long', { a: long(5) }, { $toDouble: a }, double(5)],
  ['$toDouble decimal', { a: decimal('2.5') }, { $toDouble: a }, double(2.5)],
  ['$toDecimal int', { a: int(5) }, { $toDecimal: a }, decimal('5')],
  ['$toDecimal long', { a: long(10000) }, { $toDecimal: a }, decimal('10000')],
  ['$toDecimal double keeps 15 digits', { a: double(0.1) }, { $toDecimal: a }, decimal('0.100000000000000')],
  ['$toDecimal string', { a: '-5.5' }, { $toDecimal: a }, decimal('-5.5')],
  ['$convert to long', { a: double(7) }, { $convert: { input: a, to: 'long' } }, long(7)],
  ['$convert to decimal by number', { a: int(7) }, { $convert: { input: a, to: 19 } }, decimal('7')],
  ['$convert to int, onError', { a: long('9007199254740993') }, { $convert: { input: a, to: 'int', onError: 'too big' } }, 'too big'],
  ['$toString long beyond 2^53', { a: long('9007199254740993') }, { $toString: a }, '9007199254740993'],
  ['$toString decimal', { a: decimal('1.10') }, { $toString: a }, '1.10'],
  ['$toBool long zero', { a: long(0) }, { $toBool: a }, false],
  ['$toBool decimal', { a: decimal('0.5') }, { $toBool: a }, true],
]

const COMPARISONS: ExpressionCase[] = [
  ['$eq int and long of one value', { a: int(5), b: long(5) }, { $eq: [a, b] }, true],
  ['$eq decimal 1.0 and int 1', { a: decimal('1.0'), b: int(1) }, { $eq: [a, b] }, true],
  ['$eq tells a Long beyond 2^53 from the nearest double', { a: long('9007199254740993'), b: double(9007199254740992) }, { $eq: [a, b] }, false],
  ['$gt orders a Long beyond 2^53 above the nearest double', { a: long('9007199254740993'), b: double(9007199254740992) }, { $gt: [a, b] }, true],
  ['$cmp decimal 0.1 is below double 0.1', { a: decimal('0.1'), b: double(0.1) }, { $cmp: [a, b] }, int(-1)],
  ['$in finds a value of another type', { a: long(2), b: [int(1), double(2)] }, { $in: [a, b] }, true],
  ['$sum of an array widens as $add does', { a: [int(1), long(2), int(3)] }, { $sum: a }, long(6)],
  ['$sum of ints and a decimal is decimal', { a: [int(1), decimal('0.5')] }, { $sum: a }, decimal('1.5')],
  ['$avg of ints is double', { a: [int(1), int(2)] }, { $avg: a }, double(1.5)],
  ['$avg of longs is double', { a: [long(2), long(4)] }, { $avg: a }, double(3)],
  ['$avg with a decimal is decimal', { a: [decimal('1'), int(2)] }, { $avg: a }, decimal('1.5')],
  ['$min keeps the smallest value\'s type', { a: [int(5), long(3), double(4.5)] }, { $min: a }, long(3)],
  ['$max keeps the largest value\'s type', { a: [int(5), long(3), double(4.5)] }, { $max: a }, int(5)],
  ['$max tells a Long beyond 2^53 from the nearest double', { a: [double(9007199254740992), long('9007199254740993')] }, { $max: a }, long('9007199254740993')],
]

const ERRORS: [title: string, operands: Document, expression: unknown, code: number][] = [
  ['$divide by zero', { a: int(1), b: int(0) }, { $divide: [a, b] }, 2],
  ['$mod by zero', { a: long(1), b: int(0) }, { $mod: [a, b] }, 16610],
  ['$abs of the smallest long', { a: long('-9223372036854775808') }, { $abs: a }, 28680],
  ['$toInt of a long past 2^31', { a: long(2147483648) }, { $toInt: a }, 241],
]

const ALL = [...ARITHMETIC, ...TYPES, ...COMPARISONS]

for (const target of NUMERIC_TARGETS) {
  describe(`arithmetic and type expressions keep MongoDB's types (${target})`, () => {
    const collection = useNumericTarget(target)
    before(async () => {
      for (const [i, [, operands]] of ALL.entries()) await collection('operands').insertOne({ _id: i, ...operands })
      for (const [i, [, operands]] of ERRORS.entries()) await collection('operands').insertOne({ _id: 1000 + i, ...operands })
    })
    const evaluate = async (id: number, expression: unknown) => {
      const [doc] = await collection('operands').aggregate([{ $match: { _id: id } }, { $project: { _id: 0, r: expression } }], { promoteValues: false }).toArray()
      return doc?.['r']
    }

    for (const [i, [title, , expression, expected]] of ALL.entries()) {
      it(title, async () => assertTyped(await evaluate(i, expression), expected))
    }

    for (const [i, [title, , expression, code]] of ERRORS.entries()) {
      it(`${title} is an error (${code})`, async () => {
        await assert.rejects(evaluate(1000 + i, expression), (error: { code?: unknown }) => {
          // Read with promoteValues: false, the driver decodes the error's code as an Int32 too.
          const found = Number(error.code)
          // MongoDB 7 answers 2 (BadValue) for a division by zero; older servers answered 16608.
          assert.ok(found === code || (code === 2 && found === 16608), `code ${found}`)
          return true
        })
      })
    }
  })
}
