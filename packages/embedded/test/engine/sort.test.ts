import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { Binary, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb'
import { compareBson } from '../../src/bson/bson-order.ts'
import { ENGINES, useEngine } from './engines.ts'

const early = new ObjectId('000000000000000000000001')
const late = new ObjectId('ffffffffffffffffffffffff')

describe('compareBson', () => {
  it('orders values by the server type bracketing, then by value', () => {
    const ordered = [
      new MinKey(),
      null,
      -Infinity,
      -1,
      Long.fromNumber(0),
      0.5,
      2,
      '',
      'A',
      'a',
      '\uffff',
      '😀',
      {},
      { a: 1 },
      { a: 2 },
      { b: 0 },
      [],
      [1],
      [1, 2],
      new Binary(Buffer.from([9])),
      new Binary(Buffer.from([1, 1])),
      early,
      late,
      false,
      true,
      new Date(-1),
      new Date(0),
      new Timestamp({ t: 1, i: 0 }),
      /a/,
      /b/,
      new MaxKey(),
    ]
    const shuffled = [...ordered].reverse()
    shuffled.sort(compareBson)
    assert.deepEqual(shuffled, ordered)
  })

  it('orders ObjectIds as their hex strings', () => {
    const hexes = ['000000000000000000000000', '00000000000000000000000f', '0000000000000000000000f0', '000000ff0000000000000000', '7fffffffffffffffffffffff', 'ff0000000000000000000000', 'ffffffffffffffffffffffff']
    const shuffled = hexes.map((hex) => new ObjectId(hex)).reverse()
    shuffled.sort(compareBson)
    assert.deepEqual(shuffled.map(String), hexes)
    assert.equal(compareBson(new ObjectId(hexes[1]), new ObjectId(hexes[1])), 0)
  })

  it('treats null and missing as equal and compares numbers across types', () => {
    assert.equal(compareBson(null, undefined), 0)
    assert.equal(compareBson(1, Long.fromNumber(1)), 0)
  })
})

for (const kind of ENGINES) {
  describe(`sort, skip and limit (${kind})`, () => {
    const db = useEngine(kind)
    before(async () => {
      const coll = db().collection('mixed')
      const values: [number, unknown][] = [
        [1, new Date(5)],
        [2, true],
        [3, late],
        [4, { x: 1 }],
        [5, 'text'],
        [6, 10],
        [7, null],
        [8, undefined],
        [9, -3.5],
        [10, early],
        [11, 'Text'],
      ]
      for (const [_id, v] of values) await coll.insertOne(v === undefined ? { _id } : { _id, v })
      const arrays = db().collection('arrays')
      await arrays.insertOne({ _id: 'low-high', v: [1, 100] })
      await arrays.insertOne({ _id: 'mid', v: 50 })
      await arrays.insertOne({ _id: 'empty', v: [] })
      await arrays.insertOne({ _id: 'missing' })
      const many = db().collection('many')
      for (let i = 0; i < 300; i++) await many.insertOne({ _id: i, n: (i * 7919) % 300, group: i % 3 })
    })

    async function order(name: string, sort: Record<string, 1 | -1>, extra: { skip?: number, limit?: number } = {}) {
      const docs = await db().collection(name).find({}, { sort, ...extra }).toArray()
      return docs.map((d) => d['_id'])
    }

    it('sorts ascending by BSON type bracketing (null = missing < numbers < strings < objects < ObjectId < booleans < dates)', async () => {
      assert.deepEqual(await order('mixed', { v: 1 }), [7, 8, 9, 6, 11, 5, 4, 10, 3, 2, 1])
    })

    it('sorts descending in the exact reverse bracket order', async () => {
      assert.deepEqual(await order('mixed', { v: -1 }), [1, 2, 3, 10, 4, 5, 11, 6, 9, 7, 8])
    })

    it('sorts arrays by their smallest element ascending and largest descending; [] first', async () => {
      assert.deepEqual(await order('arrays', { v: 1 }), ['empty', 'missing', 'low-high', 'mid'])
      assert.deepEqual(await order('arrays', { v: -1 }), ['low-high', 'mid', 'missing', 'empty'])
    })

    it('sorts on several keys', async () => {
      const docs = await db().collection('many').find({ n: { $lt: 12 } }, { sort: { group: -1, n: 1 } }).toArray()
      const pairs = docs.map((d) => [d['group'], d['n']])
      const expected = [...pairs].sort((a, b) => (b[0] as number) - (a[0] as number) || (a[1] as number) - (b[1] as number))
      assert.deepEqual(pairs, expected)
      assert.equal(pairs.length, 12)
    })

    it('applies skip and limit after the sort (bounded top-k)', async () => {
      const docs = await db().collection('many').find({}, { sort: { n: -1 }, skip: 10, limit: 5 }).toArray()
      assert.deepEqual(docs.map((d) => d['n']), [289, 288, 287, 286, 285])
    })

    it('returns the page of the full sort for every skip and limit, ties in scan order', async () => {
      const coll = db().collection('many')
      const full = (await coll.find({}, { sort: { group: 1 } }).toArray()).map((d) => d['_id'])
      for (const [skip, limit] of [[0, 1], [0, 7], [3, 20], [95, 10], [250, 60], [0, 299]] as const) {
        const page = await coll.find({}, { sort: { group: 1 }, skip, limit }).toArray()
        assert.deepEqual(page.map((d) => d['_id']), full.slice(skip, skip + limit), `skip ${skip}, limit ${limit}`)
      }
    })

    it('applies skip and limit without a sort, over the natural order', async () => {
      // Natural order is unspecified by MongoDB (memory: insertion order; lmdb: _id key order).
      const all = await db().collection('many').find({ group: 0 }).toArray()
      const page = await db().collection('many').find({ group: 0 }, { skip: 2, limit: 3 }).toArray()
      assert.equal(all.length, 100)
      assert.deepEqual(page, all.slice(2, 5))
    })

    it('returns everything with limit 0 and nothing past the end', async () => {
      assert.equal((await db().collection('many').find({}, { limit: 0 }).toArray()).length, 300)
      assert.equal((await db().collection('many').find({}, { skip: 300 }).toArray()).length, 0)
    })
  })
}
