import assert from 'node:assert/strict'
import { beforeEach, describe, it } from 'node:test'
import { ENGINES, must, useEngine } from './engines.ts'

for (const kind of ENGINES) {
  describe(`multi-document writes, upserts and findAndModify (${kind})`, () => {
    const db = useEngine(kind)
    let n = 0
    const fresh = () => db().collection(`m${n++}`)
    let coll: ReturnType<typeof fresh>
    beforeEach(async () => {
      coll = fresh()
      for (let i = 1; i <= 5; i++) await coll.insertOne({ _id: i, n: i, tag: i % 2 === 0 ? 'even' : 'odd' })
    })

    it('updateMany changes every match once', async () => {
      assert.deepEqual(await coll.updateMany({ tag: 'odd' }, { $inc: { n: 10 } }), { matchedCount: 3, modifiedCount: 3 })
      assert.deepEqual((await coll.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d['n']), [11, 2, 13, 4, 15])
    })

    it('upserts build the document from the filter equalities, $and and $setOnInsert', async () => {
      const result = await coll.updateOne({ $and: [{ _id: 9 }, { 'a.b': 1 }], tag: { $eq: 'new' } }, { $set: { n: 0 }, $setOnInsert: { born: true } }, { upsert: true })
      assert.deepEqual(result, { matchedCount: 0, modifiedCount: 0, upsertedId: 9 })
      assert.deepEqual(await coll.findOne({ _id: 9 }), { _id: 9, a: { b: 1 }, tag: 'new', n: 0, born: true })
    })

    it('an upsert without an _id in the filter gets a fresh ObjectId', async () => {
      const { upsertedId } = await coll.updateOne({ tag: 'x' }, { $set: { n: 1 } }, { upsert: true })
      assert.equal((upsertedId as { _bsontype?: string })._bsontype, 'ObjectId')
    })

    it('$setOnInsert is ignored when a document matched', async () => {
      await coll.updateOne({ _id: 1 }, { $setOnInsert: { born: true } }, { upsert: true })
      assert.equal(must(await coll.findOne({ _id: 1 }))['born'], undefined)
    })

    it('replaceOne keeps the _id and upserts', async () => {
      await coll.replaceOne({ _id: 2 }, { only: true })
      assert.deepEqual(await coll.findOne({ _id: 2 }), { _id: 2, only: true })
      assert.equal((await coll.replaceOne({ _id: 7 }, { x: 1 }, { upsert: true })).upsertedId, 7)
    })

    it('findOneAndUpdate and findOneAndDelete pick the first match in sort order and answer the result metadata', async () => {
      const before = await coll.findOneAndUpdate({ tag: 'even' }, { $set: { hit: 1 } }, { sort: { n: -1 }, includeResultMetadata: true })
      assert.deepEqual(before, { value: { _id: 4, n: 4, tag: 'even' }, lastErrorObject: { n: 1, updatedExisting: true }, ok: 1 })
      const removed = await coll.findOneAndDelete({}, { sort: { n: -1 }, includeResultMetadata: true })
      assert.equal(removed.value?.['_id'], 5)
      assert.equal(await coll.countDocuments({}), 4)
    })

    it('findOneAndUpdate upserts and returns the inserted document', async () => {
      assert.deepEqual(await coll.findOneAndUpdate({ _id: 8 }, { $set: { n: 8 } }, { upsert: true, returnDocument: 'after' }), { _id: 8, n: 8 })
    })

    it('upserts respect unique indexes', async () => {
      await coll.createIndex({ tag: 1, n: 1 }, { unique: true })
      await assert.rejects(coll.updateOne({ _id: 20, tag: 'odd', n: 1 }, { $set: { z: 1 } }, { upsert: true }), { code: 11000 })
    })

    it('aggregate runs mingo stages with the engine sort, and $lookup reads sibling collections', async () => {
      const other = fresh()
      await other.insertOne({ _id: 'o', ref: 2 })
      const docs = await coll.aggregate([{ $match: { tag: 'even' } }, { $lookup: { from: other.collectionName, localField: '_id', foreignField: 'ref', as: 'o' } }, { $sort: { n: -1 } }]).toArray()
      assert.deepEqual(docs.map((d) => [d['_id'], (d['o'] as unknown[]).length]), [[4, 0], [2, 1]])
    })

    it('lists and drops indexes', async () => {
      await coll.createIndex({ n: 1 }, { unique: true })
      assert.deepEqual((await coll.listIndexes().toArray()).map((i) => i['name']), ['_id_', 'n_1'])
      assert.equal(await coll.dropIndex('n_1'), true)
      await coll.insertOne({ _id: 99, n: 1 })
      assert.equal(await coll.dropIndex('n_1'), false)
    })
  })

  describe(`databases of one engine (${kind})`, () => {
    const db = useEngine(kind)

    it('keeps databases apart; dropDatabase drops only its own collections', async () => {
      await db().collection('c').insertOne({ _id: 'default' })
      await db().db('a').collection('c').insertOne({ _id: 'a' })
      await db().db('b').collection('c').insertOne({ _id: 'b' })
      assert.deepEqual(db().listDatabaseNames().sort(), ['a', 'b', 'embedded'])
      assert.deepEqual(db().db('a').listCollectionNames(), ['c'])
      await db().db('a').dropDatabase()
      assert.equal(await db().db('a').collection('c').countDocuments({}), 0)
      assert.equal(await db().db('b').collection('c').countDocuments({}), 1)
      assert.equal(await db().collection('c').countDocuments({}), 1)
    })

    it('drops one collection; createCollection makes an empty one exist', async () => {
      await db().db('x').createCollection('empty')
      assert.deepEqual(db().db('x').listCollectionNames(), ['empty'])
      assert.equal(await db().db('x').dropCollection('empty'), true)
      assert.equal(await db().db('x').dropCollection('empty'), false)
      assert.deepEqual(db().db('x').listCollectionNames(), [])
    })

    it('refuses invalid database names', () => {
      assert.throws(() => db().db('a.b'), { name: 'MongoInvalidArgumentError' })
      assert.throws(() => db().db(''), { name: 'MongoInvalidArgumentError' })
    })
  })
}
