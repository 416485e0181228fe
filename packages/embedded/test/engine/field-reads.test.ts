import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { Binary, BSON, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb'
import { documentsDecoded } from '../../src/bson/bson-codec.ts'
import { BsonFieldReader } from '../../src/bson/bson-field-reader.ts'
import type { Document } from '../../src/document.ts'
import { compileFilter } from '../../src/query/compile-filter.ts'
import { SortedCollector, type SortSpec } from '../../src/sort/sort-documents.ts'
import { ENGINES, useEngine } from './engines.ts'

/** A sort or a filter reads the fields it needs from the stored bytes; only returned documents are decoded. */

const oid = (n: number) => new ObjectId(n.toString(16).padStart(24, '0'))

/** Every BSON type, arrays (nested, empty, of documents), missing fields and null, on the sorted and filtered fields. */
const MIXED: Document[] = [
  { _id: 1, v: 5, a: { b: 3 } },
  { _id: 2, v: 'five', a: [{ b: 1 }, { b: 9 }] },
  { _id: 3, v: null, a: { b: null } },
  { _id: 4, a: [] },
  { _id: 5, v: [3, 'x', 12], a: [{ b: [4, 0] }] },
  { _id: 6, v: [], a: { c: 1 } },
  { _id: 7, v: [[1, 2]], a: [1, 2] },
  { _id: 8, v: { x: 1 }, a: 'scalar' },
  { _id: 9, v: oid(7), a: [{ b: 'z' }] },
  { _id: 10, v: true, a: { b: { c: 1 } } },
  { _id: 11, v: new Date(5), a: [{ b: 2 }, { c: 2 }] },
  { _id: 12, v: Long.fromString('9007199254740993'), a: { b: 1 } },
  { _id: 13, v: Decimal128.fromString('4.5'), a: { b: 4.5 } },
  { _id: 14, v: new Double(-0) },
  { _id: 15, v: new Binary(new Uint8Array([1, 2])) },
  { _id: 16, v: new Timestamp({ t: 1, i: 2 }) },
  { _id: 17, v: /re/i },
  { _id: 18, v: new MinKey() },
  { _id: 19, v: new MaxKey() },
  { _id: 20, v: Number.NaN },
  { _id: 21, v: -Infinity },
  { _id: 22, v: new Int32(5) },
  { _id: 23, v: 'Ünïcode ☃', a: { b: 'é' } },
  { _id: 24, v: [null, 7] },
  { _id: 25, v: [{ x: 0 }], a: null },
  { _id: 26, v: 2.5, w: 1 },
]

const SORTS: SortSpec[] = [
  { v: 1 },
  { v: -1 },
  { 'a.b': 1 },
  { 'a.b': -1 },
  { 'a.b.0': 1 },
  { a: 1, v: -1 },
  { w: -1, v: 1 },
  { v: 1, _id: -1 },
]

const FILTERS: Document[] = [
  { v: { $gt: 3 } },
  { v: { $lte: 'z' } },
  { v: 5 },
  { v: null },
  { v: { $exists: false } },
  { v: { $in: [5, 'five', null] } },
  { v: { $type: 'array' } },
  { v: { $size: 0 } },
  { 'a.b': { $gte: 2 } },
  { 'a.b': null },
  { a: { $elemMatch: { b: { $gt: 1 } } } },
  { $or: [{ v: { $lt: 3 } }, { 'a.b': 'z' }] },
  { $nor: [{ v: { $type: 'string' } }, { a: { $exists: true } }] },
  { $and: [{ v: { $gte: 0 } }, { v: { $lt: 10 } }] },
  { v: { $not: { $gt: 3 } } },
  { v: /^f/ },
  { $expr: { $gt: ['$_id', 20] } },
  { _id: { $in: [1, 5, 9] } },
]

/**
 * The reference: the whole documents (as stored, in the engine's scan order, which ties keep),
 * matched and sorted as before field reads existed.
 */
function reference(docs: Document[], filter: Document, sort: SortSpec | undefined): unknown[] {
  const matches = compileFilter(filter)
  const decoded = docs.filter((doc) => matches(doc))
  if (sort === undefined) return decoded.map((doc) => doc['_id'])
  const collector = new SortedCollector(sort)
  for (const doc of decoded) collector.add(doc)
  return collector.result().map((doc) => doc['_id'])
}

describe('BsonFieldReader', () => {
  it('reads each field as a full decode does, for every BSON type', () => {
    for (const doc of MIXED) {
      const bytes = BSON.serialize(doc)
      const whole = BSON.deserialize(bytes)
      const fields = Object.keys(whole)
      const read = new BsonFieldReader(fields).read(bytes)
      assert.deepStrictEqual(read, whole)
      for (const field of fields) assert.deepStrictEqual(new BsonFieldReader([field]).read(bytes), { [field]: whole[field] })
    }
  })

  it('leaves missing fields missing, and reads a field named __proto__ as an own field', () => {
    const doc = JSON.parse('{"__proto__": 3, "a": 1}') as Document
    const read = new BsonFieldReader(['__proto__', 'a', 'nope']).read(BSON.serialize(doc))
    assert.deepEqual(Object.keys(read), ['__proto__', 'a'])
    assert.equal(Object.getPrototypeOf(read), Object.prototype)
    assert.equal(Object.getOwnPropertyDescriptor(read, '__proto__')?.value, 3)
  })
})

for (const kind of ENGINES) {
  describe(`reads decode only what they return (${kind})`, () => {
    const db = useEngine(kind)
    const SIZE = 500
    before(async () => {
      const people = db().collection('people')
      await Promise.all(Array.from({ length: SIZE }, (_, i) => people.insertOne({ _id: i, age: (i * 37) % 100, name: `p${i}`, pad: 'x'.repeat(50) })))
      const mixed = db().collection('mixed')
      for (const doc of MIXED) await mixed.insertOne(doc)
    })

    it('decodes only the 20 documents of a sorted page', async () => {
      const start = documentsDecoded()
      const page = await db().collection('people').find({}, { sort: { age: 1, _id: 1 }, limit: 20 }).toArray()
      assert.equal(documentsDecoded() - start, 20)
      assert.deepEqual(page.map((doc) => doc['age']), [...Array(5).fill(0), ...Array(5).fill(1), ...Array(5).fill(2), ...Array(5).fill(3)])
    })

    it('decodes only the page of a filtered sort, and never what it skips', async () => {
      const start = documentsDecoded()
      const page = await db().collection('people').find({ age: { $gt: 50 } }, { sort: { age: -1 }, skip: 10, limit: 5 }).toArray()
      assert.equal(documentsDecoded() - start, 5)
      assert.deepEqual(page.map((doc) => doc['age']), [97, 97, 97, 97, 97])
    })

    it('decodes only the matches of a filtered page without a sort', async () => {
      const start = documentsDecoded()
      const page = await db().collection('people').find({ age: { $gt: 50 } }, { limit: 20 }).toArray()
      assert.equal(documentsDecoded() - start, 20)
      assert.ok(page.every((doc) => (doc['age'] as number) > 50))
    })

    it('decodes each returned document once even when the filter needs it whole', async () => {
      const start = documentsDecoded()
      const page = await db().collection('people').find({ $expr: { $lt: ['$age', 3] } }, { sort: { age: 1 } }).toArray()
      assert.equal(page.length, 15)
      // The filter decodes every document; only the matches are decoded again, to be returned.
      assert.equal(documentsDecoded() - start, SIZE + 15)
    })

    /** Every document of `mixed`, decoded in full, in scan order. */
    const stored = async () => db().collection('mixed').find({}).toArray()

    it('sorts every BSON type, array, missing field and null as the whole documents do', async () => {
      const mixed = db().collection('mixed')
      const all = await stored()
      assert.equal(all.length, MIXED.length)
      for (const sort of SORTS) {
        for (const filter of [{}, ...FILTERS]) {
          const ids = (await mixed.find(filter, { sort }).toArray()).map((doc) => doc['_id'])
          assert.deepEqual(ids, reference(all, filter, sort), `find(${JSON.stringify(filter)}).sort(${JSON.stringify(sort)})`)
        }
      }
    })

    it('filters as the whole documents do, with pages and without a sort', async () => {
      const mixed = db().collection('mixed')
      const all = await stored()
      for (const filter of FILTERS) {
        const ids = (await mixed.find(filter).toArray()).map((doc) => doc['_id'])
        assert.deepEqual(ids, reference(all, filter, undefined), `find(${JSON.stringify(filter)})`)
        const page = (await mixed.find(filter, { sort: { v: 1 }, skip: 1, limit: 3 }).toArray()).map((doc) => doc['_id'])
        assert.deepEqual(page, reference(all, filter, { v: 1 }).slice(1, 4), `find(${JSON.stringify(filter)}).sort({ v: 1 }).skip(1).limit(3)`)
      }
    })

    it('orders arrays by their smallest element ascending and largest descending, [] below null and missing', async () => {
      const mixed = db().collection('mixed')
      const filter = { _id: { $in: [3, 4, 5, 6, 24, 26] } }
      const up = (await mixed.find(filter, { sort: { v: 1, _id: 1 } }).toArray()).map((doc) => doc['_id'])
      // [] (6); then null, missing and [null, 7] (whose smallest is null) tie, by _id; then [3, 'x', 12] by 3; then 2.5 < 3.
      assert.deepEqual(up, [6, 3, 4, 24, 26, 5])
      const down = (await mixed.find(filter, { sort: { v: -1, _id: 1 } }).toArray()).map((doc) => doc['_id'])
      // [3, 'x', 12] by 'x' (strings above numbers); [null, 7] by 7; 2.5; then null and missing; [] last.
      assert.deepEqual(down, [5, 24, 26, 3, 4, 6])
    })
  })
}
