import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Query } from 'mingo/query'
import { Binary, Decimal128, Long, ObjectId } from 'mongodb'
import { copyThroughBson } from '../../src/bson/bson-codec.ts'
import type { Document } from '../../src/document.ts'
import { MINGO_OPTIONS } from '../../src/operators/mingo-options.ts'
import { compileSimpleFilter } from '../../src/query/simple-filter.ts'

const oid = new ObjectId('0123456789abcdef01234567')

/** Values of every kind, alone and in arrays, as they come out of storage (through BSON). */
const VALUES: unknown[] = [
  null,
  0,
  -0,
  5,
  5.5,
  30,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  'abc',
  'ABC',
  '5',
  '',
  true,
  false,
  new Date(0),
  new Date(5),
  oid,
  new ObjectId(),
  oid.toHexString(),
  new Long(5, 0),
  Long.fromString('9007199254740993'),
  Decimal128.fromString('5'),
  new Binary(Buffer.from([5])),
  { a: 5 },
  [],
  [5],
  [1, 30],
  ['abc', 5],
  [[5]],
  [null],
  [oid],
  [new Date(0)],
  [{ a: 5 }],
]

const DOCS: Document[] = [{ _id: 'missing' }, ...VALUES.map((v, i) => ({ _id: i, v, w: i % 3 }))].map((doc) => copyThroughBson(doc))

const FILTERS: Document[] = [
  { v: 5 },
  { v: 0 },
  { v: -0 },
  { v: 30 },
  { v: 'abc' },
  { v: '' },
  { v: true },
  { v: false },
  { v: new Date(0) },
  { v: new ObjectId(oid.toHexString()) },
  { v: { $eq: 5 } },
  { v: { $eq: 'abc' } },
  { v: { $gt: 5 } },
  { v: { $gte: 5 } },
  { v: { $lt: 5 } },
  { v: { $lte: 5 } },
  { v: { $gte: 'ABC', $lt: 'abc' } },
  { v: { $gt: '' } },
  { v: { $gt: 4, $lt: 6 } },
  { v: { $gte: Number.NEGATIVE_INFINITY } },
  { v: 5, w: 1 },
  { $and: [{ v: { $gte: 1 } }, { w: { $lte: 1 } }] },
  { $and: [{ v: 5 }, { $and: [{ w: 2 }] }] },
  { constructor: 5 },
  { toString: 'abc' },
  // `$in` of scalars: one lookup per value, where mingo hashes the whole list for every document.
  { v: { $in: [5] } },
  { v: { $in: [5, 'abc', new ObjectId(oid.toHexString()), new Date(0), true, -0] } },
  { v: { $in: [0, '', false, 30, 5.5, Number.POSITIVE_INFINITY] } },
  { v: { $in: [] } },
  { v: { $in: ['5', new Date(5)] }, w: 1 },
]

describe('compileSimpleFilter', () => {
  // The engine's own mingo query (its operators: numbers equal by value across BSON types), as compile-filter.ts builds it.
  it('answers exactly as mingo does, for every stored value', () => {
    for (const filter of FILTERS) {
      const simple = compileSimpleFilter(filter)
      assert.ok(simple, `expected a simple matcher for ${JSON.stringify(filter)}`)
      const query = new Query(filter, MINGO_OPTIONS)
      for (const doc of DOCS) {
        assert.equal(simple(doc), query.test(doc), `${JSON.stringify(filter)} on ${JSON.stringify(doc)}`)
      }
    }
  })

  it('leaves other shapes to mingo', () => {
    const others: Document[] = [
      { v: null },
      { v: Number.NaN },
      { v: [5] },
      { v: { a: 5 } },
      { v: /a/ },
      { 'v.a': 5 },
      { v: { $gte: null } },
      { v: { $gt: new Date(0) } },
      { v: { $in: [null] } },
      { v: { $in: [5, /a/] } },
      { v: { $in: [[5]] } },
      { v: { $in: [Number.NaN] } },
      { v: { $in: 5 } },
      { v: { $ne: 5 } },
      { v: {} },
      { $or: [{ v: 5 }] },
      { $and: [] },
      { $and: [{ v: /a/ }] },
      JSON.parse('{"__proto__": 5}'),
    ]
    for (const filter of others) assert.equal(compileSimpleFilter(filter), undefined, JSON.stringify(filter))
  })
})
