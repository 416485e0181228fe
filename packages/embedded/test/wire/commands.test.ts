import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { type Document as MongoDocument, MongoServerError, ObjectId } from 'mongodb'
import { RawClient, useWireServer } from './wire-harness.ts'

/** Documents with ids of any type (the driver's default types `_id` as an ObjectId). */
interface AnyDoc {
  _id?: string | number | ObjectId
  [field: string]: unknown
}

describe('commands through the official driver', () => {
  const wire = useWireServer()
  const coll = (name: string) => wire().client.db('test').collection<AnyDoc>(name)

  describe('insert', () => {
    it('reports a duplicate key as 11000 with keyValue', async () => {
      await coll('ins').insertOne({ _id: 'a' })
      const error = await coll('ins').insertOne({ _id: 'a' }).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError)
      assert.equal(error.code, 11000)
      assert.deepEqual(error.keyValue, { _id: 'a' })
    })

    it('stops an ordered batch at the first error, and goes on when unordered', async () => {
      const ordered = await coll('ins2').insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }]).catch((e: { insertedCount: number }) => e)
      assert.equal((ordered as { insertedCount: number }).insertedCount, 1)
      const unordered = await coll('ins3').insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }], { ordered: false }).catch((e: { insertedCount: number }) => e)
      assert.equal((unordered as { insertedCount: number }).insertedCount, 2)
    })

    it('refuses a $-prefixed key inside _id with 52 DollarPrefixedFieldName, and takes a dotted one', async () => {
      const ids = wire().client.db('test').collection<{ _id: MongoDocument }>('ins-dollar-id')
      for (const _id of [{ $a: 1 }, { a: { $b: 1 } }]) {
        const error = await ids.insertOne({ _id }).catch((e: unknown) => e)
        assert.ok(error instanceof MongoServerError, `${JSON.stringify(_id)} was stored`)
        assert.equal(error.code, 52)
      }
      const upsert = await ids.replaceOne({ n: 1 }, { _id: { $a: 1 } }, { upsert: true }).catch((e: unknown) => e)
      assert.ok(upsert instanceof MongoServerError)
      assert.equal(upsert.code, 52)
      assert.equal(await ids.countDocuments(), 0)
      await ids.insertOne({ _id: { 'a.b': 1 } })
      assert.deepEqual(await ids.find().toArray(), [{ _id: { 'a.b': 1 } }])
    })

    it('stores an explicit _id: null (a second one is a duplicate key) and still generates a missing _id', async () => {
      const nulls = wire().client.db('test').collection<{ _id?: null | ObjectId, n?: number }>('ins-null')
      await nulls.insertOne({ _id: null, n: 1 }, { forceServerObjectId: true })
      assert.deepEqual(await nulls.find({ _id: { $type: 'null' } }).toArray(), [{ _id: null, n: 1 }])
      const error = await nulls.insertOne({ _id: null }, { forceServerObjectId: true }).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError)
      assert.equal(error.code, 11000)
      await nulls.insertOne({ n: 2 }, { forceServerObjectId: true })
      assert.ok((await nulls.findOne({ n: 2 }))?._id instanceof ObjectId)
    })
  })

  describe('update', () => {
    before(async () => {
      await coll('upd').insertMany([
        { _id: 1, n: 1, items: [{ k: 'a', q: 1 }, { k: 'b', q: 2 }] },
        { _id: 2, n: 2, items: [{ k: 'a', q: 5 }] },
        { _id: 3, n: 3, items: [] },
      ])
    })

    it('updates every match with multi', async () => {
      const result = await coll('upd').updateMany({ n: { $gte: 2 } }, { $set: { big: true } })
      assert.deepEqual([result.matchedCount, result.modifiedCount], [2, 2])
    })

    it('upserts from the filter equalities and $setOnInsert', async () => {
      const result = await coll('upd').updateOne({ _id: 9, kind: 'x' }, { $set: { n: 9 }, $setOnInsert: { created: true } }, { upsert: true })
      assert.equal(result.upsertedId, 9)
      assert.deepEqual(await coll('upd').findOne({ _id: 9 }), { _id: 9, kind: 'x', n: 9, created: true })
      await coll('upd').updateOne({ _id: 9 }, { $setOnInsert: { created: false } }, { upsert: true })
      assert.equal((await coll('upd').findOne({ _id: 9 }))?.['created'], true)
    })

    it('accepts a $set of _id to its current value, refuses another value, and upserts an _id set by $set or $setOnInsert', async () => {
      const ids = (name: string) => wire().client.db('test').collection<{ _id: number, n?: number }>(name)
      await ids('set-id').insertOne({ _id: 1, n: 1 })
      const same = await ids('set-id').updateOne({ _id: 1 }, { $set: { _id: 1, n: 2 } })
      assert.deepEqual([same.matchedCount, same.modifiedCount], [1, 1])
      const noop = await ids('set-id').updateOne({ n: 2 }, { $set: { _id: 1 } })
      assert.deepEqual([noop.matchedCount, noop.modifiedCount], [1, 0])
      const other = await ids('set-id').updateOne({ _id: 1 }, { $set: { _id: 2 } }).catch((e: unknown) => e)
      assert.ok(other instanceof MongoServerError)
      assert.equal(other.code, 66)
      assert.deepEqual(await ids('set-id').find().toArray(), [{ _id: 1, n: 2 }])
      await ids('set-id-ups').updateOne({ _id: 5 }, { $set: { _id: 5, n: 5 } }, { upsert: true })
      await ids('set-id-ups').updateOne({ n: 6 }, { $setOnInsert: { _id: 6 } }, { upsert: true })
      await ids('set-id-ups').updateOne({ n: 7 }, { $set: { _id: 7 } }, { upsert: true })
      assert.deepEqual(await ids('set-id-ups').find().sort({ _id: 1 }).toArray(), [{ _id: 5, n: 5 }, { _id: 6, n: 6 }, { _id: 7, n: 7 }])
      const clash = await ids('set-id-ups').updateOne({ _id: 8 }, { $set: { _id: 9 } }, { upsert: true }).catch((e: unknown) => e)
      assert.ok(clash instanceof MongoServerError)
      assert.equal(clash.code, 66)
    })

    it('upserts an _id: null from the filter or the replacement, as MongoDB does', async () => {
      const nulls = (name: string) => wire().client.db('test').collection<{ _id?: null, n?: number }>(name)
      await nulls('ups-null-1').updateOne({ _id: null }, { $set: { n: 1 } }, { upsert: true })
      assert.deepEqual(await nulls('ups-null-1').find().toArray(), [{ _id: null, n: 1 }])
      await nulls('ups-null-2').updateMany({ _id: null }, { $set: { n: 2 } }, { upsert: true })
      assert.deepEqual(await nulls('ups-null-2').find().toArray(), [{ _id: null, n: 2 }])
      // The replacement carries _id: null, which the typed collection's WithoutId<> would not take.
      await wire().client.db('test').collection('ups-null-3').replaceOne({ n: 3 }, { _id: null, n: 3 }, { upsert: true })
      assert.deepEqual(await nulls('ups-null-3').find().toArray(), [{ _id: null, n: 3 }])
      await nulls('ups-null-4').bulkWrite([{ updateOne: { filter: { _id: null }, update: { $set: { n: 4 } }, upsert: true } }])
      assert.deepEqual(await nulls('ups-null-4').find().toArray(), [{ _id: null, n: 4 }])
    })

    it('applies arrayFilters and the positional $ operator', async () => {
      await coll('upd').updateOne({ _id: 1 }, { $inc: { 'items.$[e].q': 10 } } as MongoDocument, { arrayFilters: [{ 'e.k': 'b' }] })
      await coll('upd').updateOne({ _id: 2, 'items.k': 'a' }, { $set: { 'items.$.q': 0 } })
      assert.deepEqual((await coll('upd').findOne({ _id: 1 }))?.['items'], [{ k: 'a', q: 1 }, { k: 'b', q: 12 }])
      assert.deepEqual((await coll('upd').findOne({ _id: 2 }))?.['items'], [{ k: 'a', q: 0 }])
    })

    it('replaces a document, keeping its _id, and upserts a replacement', async () => {
      await coll('upd').replaceOne({ _id: 3 }, { only: 'this' })
      assert.deepEqual(await coll('upd').findOne({ _id: 3 }), { _id: 3, only: 'this' })
      const result = await coll('upd').replaceOne({ _id: 10 }, { fresh: 1 }, { upsert: true })
      assert.equal(result.upsertedId, 10)
    })

    it('answers an invalid update with the server code', async () => {
      const error = await coll('upd').updateOne({ _id: 1 }, { $inc: { items: 1 } } as MongoDocument).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError)
      assert.equal(error.code, 14)
    })
  })

  describe('delete, count and findAndModify', () => {
    before(async () => {
      await coll('dl').insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i, even: i % 2 === 0 })))
    })

    it('deletes one (limit 1) or all matches (limit 0)', async () => {
      assert.equal((await coll('dl').deleteOne({ even: true })).deletedCount, 1)
      assert.equal((await coll('dl').deleteMany({ even: true })).deletedCount, 4)
      assert.equal(await coll('dl').countDocuments(), 5)
      assert.equal(await coll('dl').estimatedDocumentCount(), 5)
    })

    it('answers distinct values, array elements one by one', async () => {
      await coll('dist').insertMany([{ t: ['a', 'b'] }, { t: 'a' }, { t: 2 }, { u: 1 }])
      assert.deepEqual(await coll('dist').distinct('t'), [2, 'a', 'b'])
    })

    it('answers distinct values of a dotted path among the matches of a query, and refuses an empty key', async () => {
      await coll('dist2').insertMany([{ a: [{ b: 2 }, { b: 1 }], keep: true }, { a: { b: 1 }, keep: true }, { a: { b: 9 } }])
      assert.deepEqual(await coll('dist2').distinct('a.b', { keep: true }), [1, 2])
      await assert.rejects(coll('dist2').distinct(''), { code: 14 })
    })

    it('returns the document before or after, in sort order, and removes', async () => {
      const before = await coll('dl').findOneAndUpdate({}, { $set: { seen: true } }, { sort: { _id: -1 } })
      assert.deepEqual(before, { _id: 9, even: false })
      const after = await coll('dl').findOneAndUpdate({ _id: 7 }, { $set: { seen: true } }, { returnDocument: 'after', projection: { seen: 1 } })
      assert.deepEqual(after, { _id: 7, seen: true })
      const removed = await coll('dl').findOneAndDelete({ seen: true }, { sort: { _id: 1 } })
      assert.equal(removed?.['_id'], 7)
      const upserted = await coll('dl').findOneAndUpdate({ _id: 42 }, { $set: { up: 1 } }, { upsert: true, returnDocument: 'after' })
      assert.deepEqual(upserted, { _id: 42, up: 1 })
    })

    it('answers the result metadata of findOneAndUpdate, findOneAndReplace and findOneAndDelete', async () => {
      const fam = coll('fam')
      await fam.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 2 }])
      const upserted = await fam.findOneAndUpdate({ _id: 43 }, { $set: { n: 43 } }, { upsert: true, includeResultMetadata: true })
      assert.deepEqual({ ...upserted }, { value: null, lastErrorObject: { n: 1, updatedExisting: false, upserted: 43 }, ok: 1 })
      const replaced = await fam.findOneAndReplace({ n: { $lt: 10 } }, { n: 20 }, { sort: { n: -1 }, projection: { n: 1 }, returnDocument: 'after', includeResultMetadata: true })
      assert.deepEqual({ ...replaced }, { value: { _id: 2, n: 20 }, lastErrorObject: { n: 1, updatedExisting: true }, ok: 1 })
      const missed = await fam.findOneAndDelete({ n: 99 }, { includeResultMetadata: true })
      assert.deepEqual({ ...missed }, { value: null, lastErrorObject: { n: 0, updatedExisting: false }, ok: 1 })
    })

    it('refuses an update that mixes operators and fields with FailedToParse (9), as the server, in update and findAndModify', async () => {
      await coll('mixed').insertOne({ _id: 1 })
      const mixed = { $set: { a: 1 }, b: 1 } as MongoDocument
      await assert.rejects(coll('mixed').updateOne({ _id: 1 }, mixed), { code: 9 })
      await assert.rejects(coll('mixed').findOneAndUpdate({ _id: 1 }, mixed), { code: 9 })
      assert.deepEqual(await coll('mixed').findOne({ _id: 1 }), { _id: 1 })
    })

    it('refuses a bad projection of findAndModify before changing anything', async () => {
      await coll('projected').insertOne({ _id: 1, n: 1 })
      await assert.rejects(coll('projected').findOneAndUpdate({ _id: 1 }, { $set: { n: 2 } }, { projection: { '__proto__.x': 1 } as MongoDocument }), { code: 2 })
      assert.deepEqual(await coll('projected').findOne({ _id: 1 }), { _id: 1, n: 1 })
    })

    it('refuses a sort order other than 1 and -1, and $natural orders but { $natural: 1 }, in find and findAndModify', async () => {
      const raw = await RawClient.open(wire().server)
      try {
        for (const sort of [{ n: 2 }, { n: 'up' }, { $natural: -1 }]) {
          assert.equal((await raw.command({ find: 'dl', sort })).code, 2, JSON.stringify(sort))
          assert.equal((await raw.command({ findAndModify: 'dl', sort, remove: true })).code, 2, JSON.stringify(sort))
        }
        const natural = await raw.command({ find: 'dl', filter: { _id: { $lt: 4 } }, sort: { $natural: 1 } })
        const { firstBatch } = natural['cursor'] as { firstBatch: { _id: number }[] }
        assert.deepEqual(firstBatch.map((d) => d._id), [1, 3])
      } finally {
        raw.close()
      }
    })
  })

  describe('aggregate', () => {
    before(async () => {
      const alice = new ObjectId()
      const bob = new ObjectId()
      await coll('authors').insertMany([{ _id: alice, name: 'alice' }, { _id: bob, name: 'bob' }])
      await coll('books').insertMany([
        { title: 'b1', author: alice, year: 2001 },
        { title: 'b2', author: alice, year: 1999 },
        { title: 'b3', author: bob, year: 2010 },
        { title: 'b4', year: 2020 },
      ])
    })

    it('runs $match $sort $skip $limit $project', async () => {
      const docs = await coll('books').aggregate([{ $match: { year: { $gt: 1990 } } }, { $sort: { year: -1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { _id: 0, title: 1 } }]).toArray()
      assert.deepEqual(docs, [{ title: 'b3' }, { title: 'b1' }])
    })

    it('runs $lookup $unwind $replaceRoot $count', async () => {
      const joined = await coll('books')
        .aggregate([{ $lookup: { from: 'authors', localField: 'author', foreignField: '_id', as: 'a' } }, { $unwind: '$a' }, { $replaceRoot: { newRoot: '$a' } }, { $sort: { name: 1 } }, { $project: { _id: 0, name: 1 } }])
        .toArray()
      assert.deepEqual(joined, [{ name: 'alice' }, { name: 'alice' }, { name: 'bob' }])
      assert.deepEqual(await coll('books').aggregate([{ $match: { author: { $exists: true } } }, { $count: 'n' }]).toArray(), [{ n: 3 }])
    })

    it('runs a $lookup with localField/foreignField and a pipeline over the matching documents only, with let', async () => {
      const joined = await coll('authors')
        .aggregate([
          { $sort: { name: 1 } },
          {
            $lookup: {
              from: 'books',
              localField: '_id',
              foreignField: 'author',
              let: { who: '$name' },
              pipeline: [{ $match: { year: { $gt: 1990 } } }, { $sort: { year: 1 } }, { $project: { _id: 0, title: 1, by: '$$who' } }],
              as: 'books',
            },
          },
          { $project: { _id: 0, name: 1, books: 1 } },
        ])
        .toArray()
      assert.deepEqual(joined, [
        { name: 'alice', books: [{ title: 'b2', by: 'alice' }, { title: 'b1', by: 'alice' }] },
        { name: 'bob', books: [{ title: 'b3', by: 'bob' }] },
      ])
    })

    it('refuses a misplaced $out, unsupported stages and unknown stages with an error', async () => {
      await assert.rejects(coll('books').aggregate([{ $out: 'copy' }, { $match: {} }]).toArray(), { code: 40601 })
      await assert.rejects(coll('books').aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }]).toArray(), /not supported by the embedded engine/)
      await assert.rejects(coll('books').aggregate([{ $nope: 1 }]).toArray(), MongoServerError)
    })
  })

  describe('indexes and collections', () => {
    it('creates, lists and drops indexes; a unique index refuses duplicates', async () => {
      await coll('ix').createIndex({ email: 1 }, { unique: true })
      await coll('ix').createIndex({ age: -1 })
      assert.deepEqual((await coll('ix').indexes()).map((i) => i.name), ['_id_', 'email_1', 'age_-1'])
      await coll('ix').insertOne({ email: 'a@x' })
      await assert.rejects(coll('ix').insertOne({ email: 'a@x' }), { code: 11000 })
      await coll('ix').dropIndex('email_1')
      await coll('ix').insertOne({ email: 'a@x' })
      await assert.rejects(coll('ix').dropIndex('nope'), { code: 27 })
      await assert.rejects(coll('ix').createIndex({ loc: '2dsphere' }), MongoServerError)
    })

    it('lists collections, drops one, and dropDatabase drops only that database', async () => {
      const other = wire().client.db('other')
      await other.collection('keep').insertOne({ x: 1 })
      const names = (await wire().client.db('test').listCollections().toArray()).map((c) => c.name)
      assert.ok(names.includes('ix') && !names.includes('keep'))
      assert.equal(await coll('ix').drop(), true)
      assert.ok(!(await wire().client.db('test').listCollections({ name: 'ix' }).toArray()).length)
      await other.createCollection('kept')
      assert.deepEqual(await other.listCollections({ name: /^ke/ }, { nameOnly: true }).toArray(), [{ name: 'keep', type: 'collection' }, { name: 'kept', type: 'collection' }])
      assert.deepEqual(await other.listCollections({ name: 'kept', 'info.readOnly': false }).toArray(), [
        { name: 'kept', type: 'collection', options: {}, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } },
      ])
      await wire().client.db('scratch').collection('gone').insertOne({ y: 1 })
      await wire().client.db('scratch').dropDatabase()
      assert.equal(await wire().client.db('scratch').collection('gone').countDocuments(), 0)
      assert.equal(await other.collection('keep').countDocuments(), 1)
      assert.ok((await coll('upd').countDocuments()) > 0)
    })
  })

  describe('errors', () => {
    it('answers CommandNotFound (59) for unknown commands', async () => {
      await assert.rejects(wire().client.db('test').command({ noSuchCommand: 1 }), { code: 59, codeName: 'CommandNotFound' })
    })

    it('answers BadValue (2) for an invalid query operator', async () => {
      await assert.rejects(coll('dl').find({ a: { $bogus: 1 } }).toArray(), { code: 2 })
    })

    it('refuses $where: scripts never run inside the server', async () => {
      await assert.rejects(coll('dl').find({ $where: 'true' }).toArray(), MongoServerError)
    })

    it('refuses $function, $accumulator, a nested $merge and index options other than unique and name', async () => {
      const script = { $function: { body: 'function () { return true }', args: [], lang: 'js' } }
      await assert.rejects(coll('dl').find({ $expr: script }).toArray(), MongoServerError)
      const accumulator = { $accumulator: { init: 'function () { return 0 }', accumulate: 'function (s) { return s }', accumulateArgs: [], merge: 'function (a) { return a }', lang: 'js' } }
      await assert.rejects(coll('dl').aggregate([{ $group: { _id: null, n: accumulator } }]).toArray(), MongoServerError)
      await assert.rejects(coll('dl').aggregate([{ $facet: { a: [{ $merge: { into: 'copy' } }] } }]).toArray(), { code: 40600 })
      await assert.rejects(coll('dl').createIndex({ even: 1 }, { sparse: true }), /not supported by the embedded engine/)
    })

    it('refuses retryable writes (a txnNumber without autocommit: false), as a standalone server does', async () => {
      const raw = await RawClient.open(wire().server)
      try {
        const reply = await raw.command({ insert: 'dl', documents: [{ t: 1 }], txnNumber: 1 })
        assert.equal(reply['code'], 20)
        assert.equal(await coll('dl').countDocuments({ t: 1 }), 0)
      } finally {
        raw.close()
      }
    })
  })
})
