import assert from 'node:assert/strict'
import { beforeEach, describe, it } from 'node:test'
import { MongoServerError } from 'mongodb'
import type { EmbeddedCollection } from '../../src/open-embedded.ts'
import { ENGINES, useEngine } from './engines.ts'

/** The server error `promise` rejects with, failing the test when it resolves. */
async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`)
  return error
}

const byId = { $expr: { $eq: ['$_id', '$$id'] } }

for (const kind of ENGINES) {
  describe(`let variables (${kind})`, () => {
    const db = useEngine(kind)
    let coll: EmbeddedCollection
    let run = 0
    beforeEach(async () => {
      coll = db().collection(`let${run++}`)
      for (const _id of [1, 2, 3]) await coll.insertOne({ _id, n: _id * 10 })
    })

    it('find, findOne and countDocuments read $$name in $expr', async () => {
      assert.deepEqual(await coll.find(byId, { let: { id: 2 } }).toArray(), [{ _id: 2, n: 20 }])
      assert.deepEqual(await coll.findOne(byId, { let: { id: 3 } }), { _id: 3, n: 30 })
      assert.equal(await coll.countDocuments({ $expr: { $gte: ['$n', '$$min'] } }, { let: { min: 20 } }), 2)
    })

    it('aggregate reads them in $match and in the stages, each evaluated once before any document', async () => {
      const letVars = { id: 1, x: 'foo', y: { $literal: '$bar' }, rand: { $rand: {} }, twice: { $multiply: ['$$id', 2] } }
      const pipeline = [{ $match: byId }, { $project: { _id: 0, x: '$$x', y: '$$y', rand: '$$rand', twice: '$$twice' } }]
      const [doc, ...rest] = await coll.aggregate(pipeline, { let: letVars }).toArray()
      assert.equal(rest.length, 0)
      assert.deepEqual({ ...doc, rand: typeof doc?.['rand'] }, { x: 'foo', y: '$bar', rand: 'number', twice: 2 })
      const all = await coll.aggregate([{ $set: { r: '$$r', now: '$$t' } }], { let: { r: { $rand: {} }, t: '$$NOW' } }).toArray()
      assert.equal(new Set(all.map((d) => d['r'])).size, 1)
      assert.ok(all[0]?.['now'] instanceof Date)
    })

    it('updateOne, updateMany, replaceOne and the findOneAnd* methods match with them; a pipeline reads them', async () => {
      assert.deepEqual(await coll.updateOne(byId, [{ $set: { x: '$$x' } }], { let: { id: 1, x: 'foo' } }), { matchedCount: 1, modifiedCount: 1 })
      assert.deepEqual(await coll.updateMany({ $expr: { $gt: ['$n', '$$min'] } }, { $inc: { n: 1 } }, { let: { min: 10 } }), { matchedCount: 2, modifiedCount: 2 })
      assert.deepEqual(await coll.replaceOne(byId, { r: 1 }, { let: { id: 2 } }), { matchedCount: 1, modifiedCount: 1 })
      assert.deepEqual(await coll.findOneAndUpdate(byId, [{ $set: { y: '$$y' } }], { let: { id: 3, y: 'bar' }, returnDocument: 'after' }), { _id: 3, n: 31, y: 'bar' })
      assert.deepEqual(await coll.findOneAndReplace(byId, { z: 1 }, { let: { id: 3 } }), { _id: 3, n: 31, y: 'bar' })
      assert.deepEqual(await coll.find({}).toArray(), [{ _id: 1, n: 10, x: 'foo' }, { _id: 2, r: 1 }, { _id: 3, z: 1 }])
    })

    it('an upserted pipeline reads them too', async () => {
      const result = await coll.updateOne({ _id: 9 }, [{ $set: { from: '$$who' } }], { upsert: true, let: { who: 'let' } })
      assert.equal(result.upsertedId, 9)
      assert.deepEqual(await coll.findOne({ _id: 9 }), { _id: 9, from: 'let' })
    })

    it('deleteOne, deleteMany and findOneAndDelete match with them', async () => {
      assert.deepEqual(await coll.findOneAndDelete(byId, { let: { id: 1 } }), { _id: 1, n: 10 })
      assert.deepEqual(await coll.deleteOne(byId, { let: { id: 2 } }), { deletedCount: 1 })
      assert.deepEqual(await coll.deleteMany({ $expr: { $in: ['$_id', '$$ids'] } }, { let: { ids: [3] } }), { deletedCount: 1 })
      assert.equal(await coll.countDocuments({}), 0)
    })

    it('without a let, $$name is an undefined variable: 17276', async () => {
      const error = await serverError(coll.find(byId).toArray())
      assert.deepEqual([error.code, error.message], [17276, 'Use of undefined variable: id'])
    })

    it("refuses a let that is not a document with 14 TypeMismatch naming the command's field", async () => {
      const error = await serverError(coll.find(byId, { let: 5 as never }).toArray())
      assert.deepEqual([error.code, error.message], [14, "BSON field 'find.let' is the wrong type 'int', expected type 'object'"])
      assert.match((await serverError(coll.updateOne(byId, { $set: { a: 1 } }, { let: [] as never }))).message, /'update\.let' is the wrong type 'array'/)
      assert.match((await serverError(coll.deleteOne(byId, { let: 'x' as never }))).message, /'delete\.let' is the wrong type 'string'/)
    })

    it('refuses invalid variable names with 9 FailedToParse, system ones with 4738901', async () => {
      const cases: [string, number, string][] = [
        ['Id', 9, "Invalid 'let' parameter :: caused by :: 'Id' starts with an invalid character for a user variable name"],
        ['_id', 9, "Invalid 'let' parameter :: caused by :: '_id' starts with an invalid character for a user variable name"],
        ['a.b', 9, "Invalid 'let' parameter :: caused by :: 'a.b' contains an invalid character for a variable name: '.'"],
        ['', 9, "Invalid 'let' parameter :: caused by :: empty variable names are not allowed"],
        ['NOW', 4738901, 'Attempt to set internal constant: NOW'],
        // MongoDB rebinds the current document; the engine cannot, and says so.
        ['CURRENT', 9, "Invalid 'let' parameter :: caused by :: the embedded engine does not support rebinding CURRENT"],
      ]
      for (const [name, code, message] of cases) {
        const error = await serverError(coll.find({}, { let: { [name]: 1 } }).toArray())
        assert.deepEqual([error.code, error.message], [code, message])
      }
      assert.deepEqual(await coll.find(byId, { let: { id: 1, éclair: 2, a_B9: 3 } }).toArray(), [{ _id: 1, n: 10 }])
    })

    it('refuses a let expression that reads a field, with 4890500', async () => {
      for (const expression of ['$n', { $add: ['$n', 1] }, '$$ROOT']) {
        const error = await serverError(coll.updateMany({}, { $set: { a: 1 } }, { let: { v: expression } }))
        assert.equal(error.code, 4890500)
      }
      assert.equal(await coll.countDocuments({ a: 1 }), 0)
    })
  })
}
