import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { Binary, ObjectId } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { ENGINES, useEngine } from './engines.ts'

/**
 * The engine against MongoDB's documented results, for the query, sort and update features the
 * router uses. Each expected value is what the MongoDB manual specifies (comparison/sort order,
 * "Query for Null or Missing Fields", array query semantics, $regex options, update operators).
 */
const oidLow = new ObjectId('000000000000000000000001')
const oidHigh = new ObjectId('ffffffffffffffffffffffff')

const DOCS: Document[] = [
  { _id: 1, v: null },
  { _id: 2 },
  { _id: 3, v: 5 },
  { _id: 4, v: 'abc' },
  { _id: 5, v: [1, null] },
  { _id: 6, v: [] },
  { _id: 7, v: { a: 1 } },
  { _id: 8, v: oidHigh },
  { _id: 9, v: true },
  { _id: 10, v: new Date(0) },
  { _id: 11, v: 'ABD' },
  { _id: 12, v: 'line1\nabc' },
  { _id: 13, v: [3, 7] },
  { _id: 14, v: oidLow },
  { _id: 15, v: new Binary(Buffer.from([1])) },
  { _id: 16, v: 2.5 },
]

const QUERIES: [string, Document, number[]][] = [
  ['null matches null and missing', { v: null }, [1, 2, 5]],
  ['$eq null matches null, missing and arrays holding null', { v: { $eq: null } }, [1, 2, 5]],
  ['$ne null excludes null, missing and arrays holding null', { v: { $ne: null } }, [3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]],
  ['$gte null matches what $eq null matches', { v: { $gte: null } }, [1, 2, 5]],
  ['$lte null matches what $eq null matches', { v: { $lte: null } }, [1, 2, 5]],
  ['$gt null matches nothing', { v: { $gt: null } }, []],
  ['$lt null matches nothing', { v: { $lt: null } }, []],
  ['$in [null] matches null and missing', { v: { $in: [null] } }, [1, 2, 5]],
  ['$nin [null] excludes null and missing', { v: { $nin: [null] } }, [3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]],
  ['$exists false matches only missing', { v: { $exists: false } }, [2]],
  ['$exists true matches null', { v: { $exists: true } }, [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]],
  ['$gt on numbers stays within numbers (type bracketing)', { v: { $gt: 2 } }, [3, 13, 16]],
  ['$lt on strings stays within strings', { v: { $lt: 'b' } }, [4, 11]],
  ['string comparison is binary: uppercase sorts first', { v: { $gte: 'ABC', $lt: 'abc' } }, [11]],
  ['array: any element may satisfy each condition', { v: { $gt: 4, $lt: 6 } }, [3, 13]],
  ['$elemMatch: one element satisfies all conditions', { v: { $elemMatch: { $gt: 4, $lt: 6 } } }, []],
  ['equality with an empty array', { v: [] }, [6]],
  ['equality with a whole array', { v: [3, 7] }, [13]],
  ['$size', { v: { $size: 2 } }, [5, 13]],
  ['$all', { v: { $all: [3, 7] } }, [13]],
  ['$regex option i', { v: { $regex: '^ab', $options: 'i' } }, [4, 11]],
  ['$regex without m: ^ anchors at the start only', { v: { $regex: '^abc' } }, [4]],
  ['$regex option m: ^ anchors at each line', { v: { $regex: '^abc', $options: 'm' } }, [4, 12]],
  ['$regex option s: dot matches newline', { v: { $regex: 'line1.abc', $options: 's' } }, [12]],
  ['$regex option x: whitespace ignored', { v: { $regex: 'a b c', $options: 'x' } }, [4, 12]],
  ['$regex on a non-string never matches', { _id: { $lte: 3 }, v: { $regex: '5' } }, []],
  ['ObjectId comparison', { v: { $gt: oidLow } }, [8]],
  ['$not negates, and matches missing', { v: { $not: { $gt: 2 } } }, [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15]],
  ['$type number', { _id: { $lte: 16 }, v: { $type: 'number' } }, [3, 5, 13, 16]],
  ['dotted path into an embedded document', { 'v.a': 1 }, [7]],
]

/** MongoDB's ascending order: MinKey < null/missing < numbers < strings < objects < arrays < BinData < ObjectId < booleans < dates. */
const ASCENDING_BY_TYPE = [6, 1, 2, 5, 16, 13, 3, 11, 4, 12, 7, 15, 14, 8, 9, 10]

for (const kind of ENGINES) {
  describe(`fidelity with MongoDB (${kind})`, () => {
    const db = useEngine(kind)
    before(async () => {
      for (const doc of DOCS) await db().collection('f').insertOne({ ...doc })
    })

    async function ids(filter: Document, sort?: Record<string, 1 | -1>): Promise<unknown[]> {
      const docs = await db().collection('f').find(filter, sort ? { sort } : {}).toArray()
      return docs.map((d) => d['_id'])
    }

    for (const [title, filter, expected] of QUERIES) {
      it(`query: ${title}`, async () => {
        assert.deepEqual((await ids(filter)).sort((a, b) => Number(a) - Number(b)), expected)
      })
    }

    it('sort: ascending brackets types in the documented order (arrays by their smallest element)', async () => {
      assert.deepEqual(await ids({}, { v: 1, _id: 1 }), ASCENDING_BY_TYPE)
    })

    it('sort: descending uses the largest array element, and ObjectIds by their bytes', async () => {
      const order = await ids({ _id: { $in: [3, 8, 13, 14, 16] } }, { v: -1 })
      assert.deepEqual(order, [8, 14, 13, 3, 16])
    })

    it('update: $set creates embedded paths, $unset removes, $inc creates a missing field', async () => {
      const coll = db().collection('u')
      await coll.insertOne({ _id: 1, a: { b: 1 }, c: 1 })
      await coll.updateOne({ _id: 1 }, { $set: { 'a.d.e': 2 }, $unset: { c: '' }, $inc: { n: 3 } })
      assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, a: { b: 1, d: { e: 2 } }, n: 3 })
    })

    it('update: $push onto a missing field creates the array; $addToSet skips duplicates', async () => {
      const coll = db().collection('u')
      await coll.updateOne({ _id: 1 }, { $push: { list: 1 } })
      await coll.updateOne({ _id: 1 }, { $addToSet: { list: 1 } })
      await coll.updateOne({ _id: 1 }, { $addToSet: { list: 2 } })
      assert.deepEqual((await coll.findOne({ _id: 1 }))?.['list'], [1, 2])
    })

    it('update: $set to null keeps the field, as null', async () => {
      const coll = db().collection('u')
      await coll.updateOne({ _id: 1 }, { $set: { n: null } })
      const doc = await coll.findOne({ _id: 1 })
      assert.ok(doc && Object.hasOwn(doc, 'n') && doc['n'] === null)
    })
  })
}
