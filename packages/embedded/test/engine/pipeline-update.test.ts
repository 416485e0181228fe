import assert from 'node:assert/strict'
import { beforeEach, describe, it } from 'node:test'
import { MongoInvalidArgumentError, MongoServerError, ObjectId } from 'mongodb'
import type { EmbeddedCollection } from '../../src/open-embedded.ts'
import { ENGINES, useEngine } from './engines.ts'

/** The server error `promise` rejects with, failing the test when it resolves. */
async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`)
  return error
}

for (const kind of ENGINES) {
  describe(`pipeline-style updates (${kind})`, () => {
    const db = useEngine(kind)
    let coll: EmbeddedCollection
    let run = 0
    beforeEach(async () => {
      coll = db().collection(`pipe${run++}`)
      await coll.insertOne({ _id: 1, name: 'box', qty: 2, price: 5, t: { u: { v: 1 } } })
      await coll.insertOne({ _id: 2, name: 'bag', qty: 1, price: 3 })
    })

    it('runs $set, $addFields, $unset, computing from the document', async () => {
      const result = await coll.updateOne({ _id: 1 }, [{ $set: { total: { $multiply: ['$qty', '$price'] } } }, { $addFields: { seen: true } }, { $unset: ['t', 'price'] }])
      assert.deepEqual(result, { matchedCount: 1, modifiedCount: 1 })
      assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, name: 'box', qty: 2, total: 10, seen: true })
    })

    it('keeps _id, first, through $project, $replaceRoot and $replaceWith', async () => {
      await coll.updateMany({}, [{ $project: { qty: 1 } }, { $addFields: { foo: 1 } }])
      assert.deepEqual(await coll.find({}).toArray(), [{ _id: 1, qty: 2, foo: 1 }, { _id: 2, qty: 1, foo: 1 }])
      await coll.insertOne({ _id: 3, t: { u: { v: 1 } } })
      await coll.updateOne({ _id: 3 }, [{ $replaceRoot: { newRoot: '$t' } }])
      assert.deepEqual(await coll.findOne({ _id: 3 }), { _id: 3, u: { v: 1 } })
      await coll.updateOne({ _id: 3 }, [{ $replaceWith: { w: 2 } }])
      assert.deepEqual(await coll.findOne({ _id: 3 }), { _id: 3, w: 2 })
    })

    it('stores $-prefixed and dotted field names that $setField produces, at the top level too', async () => {
      await coll.updateOne({ _id: 2 }, [{ $replaceWith: { $setField: { field: { $literal: '$a' }, value: 1, input: '$$ROOT' } } }])
      await coll.updateOne({ _id: 2 }, [{ $set: { inner: { $setField: { field: { $literal: 'a.b' }, value: 2, input: {} } } } }])
      assert.deepEqual(await coll.findOne({ _id: 2 }), { _id: 2, name: 'bag', qty: 1, price: 3, $a: 1, inner: { 'a.b': 2 } })
    })

    it('counts a pipeline that changes nothing as matched, not modified', async () => {
      assert.deepEqual(await coll.updateMany({}, [{ $set: { qty: '$qty' } }]), { matchedCount: 2, modifiedCount: 0 })
    })

    it('findOneAndUpdate answers the document before or after the pipeline', async () => {
      const before = await coll.findOneAndUpdate({ _id: 2 }, [{ $set: { qty: { $add: ['$qty', 1] } } }])
      assert.equal(before?.['qty'], 1)
      const after = await coll.findOneAndUpdate({ _id: 2 }, [{ $set: { qty: { $add: ['$qty', 1] } } }], { returnDocument: 'after' })
      assert.equal(after?.['qty'], 3)
    })

    it('upserts: the pipeline runs on the filter equalities, and a missing _id is generated', async () => {
      const byId = await coll.updateOne({ _id: 9, kind: 'new' }, [{ $set: { label: { $concat: ['$kind', '!'] } } }], { upsert: true })
      assert.equal(byId.upsertedId, 9)
      assert.deepEqual(await coll.findOne({ _id: 9 }), { _id: 9, kind: 'new', label: 'new!' })
      const generated = await coll.updateOne({ kind: 'other' }, [{ $set: { n: 1 } }], { upsert: true })
      assert.ok(generated.upsertedId instanceof ObjectId)
      assert.deepEqual(await coll.findOne({ kind: 'other' }), { _id: generated.upsertedId, kind: 'other', n: 1 })
      const upserted = await coll.findOneAndUpdate({ _id: 10 }, [{ $set: { n: 2 } }], { upsert: true, returnDocument: 'after' })
      assert.deepEqual(upserted, { _id: 10, n: 2 })
    })

    it('refuses a pipeline that changes _id with 66 ImmutableField, and accepts one that sets it to its value', async () => {
      const error = await serverError(coll.updateOne({ _id: 1 }, [{ $set: { _id: 7 } }]))
      assert.equal(error.code, 66)
      assert.match(error.message, /the \(immutable\) field '_id' was found to have been altered to _id: 7/)
      assert.equal((await serverError(coll.updateOne({ _id: 9 }, [{ $set: { _id: 8 } }], { upsert: true }))).code, 66)
      assert.deepEqual(await coll.updateOne({ _id: 1 }, [{ $set: { _id: 1, qty: 3 } }]), { matchedCount: 1, modifiedCount: 1 })
      assert.equal(await coll.countDocuments({}), 2)
    })

    it('refuses stages an update cannot run with MongoDB codes: 72 InvalidOptions, 40324, 40323', async () => {
      for (const stage of [{ $match: { _id: 1 } }, { $group: { _id: null } }, { $out: 'x' }, { $lookup: { from: 'x', as: 'y', pipeline: [] } }]) {
        const error = await serverError(coll.updateOne({ _id: 1 }, [{ $set: { a: 1 } }, stage]))
        assert.equal(error.code, 72)
        assert.equal(error.message, `${Object.keys(stage)[0]} is not allowed to be used within an update`)
      }
      const unknown = await serverError(coll.updateOne({ _id: 1 }, [{ $nope: {} }]))
      assert.deepEqual([unknown.code, unknown.message], [40324, "Unrecognized pipeline stage name: '$nope'"])
      const twoFields = await serverError(coll.updateOne({ _id: 1 }, [{ $set: { a: 1 }, $unset: 'b' }]))
      assert.equal(twoFields.code, 40323)
      const filters = await serverError(coll.updateOne({ _id: 1 }, [{ $set: { a: 1 } }], { arrayFilters: [{ 'e.x': 1 }] }))
      assert.deepEqual([filters.code, filters.message], [9, 'arrayFilters may not be specified for pipeline-style updates'])
      assert.deepEqual((await coll.findOne({ _id: 1 }))?.['a'], undefined)
    })

    it('refuses, as the driver does, a pipeline without an operator and a pipeline as a replacement', async () => {
      await assert.rejects(coll.updateOne({ _id: 1 }, []), MongoInvalidArgumentError)
      await assert.rejects(coll.replaceOne({ _id: 1 }, [{ $set: { a: 1 } }] as never), MongoInvalidArgumentError)
    })

    it("runs with the engine's operators: scripts refused, regexes through RE2", async () => {
      const script = { $function: { body: 'function () { return 1 }', args: [], lang: 'js' } }
      await serverError(coll.updateOne({ _id: 1 }, [{ $set: { a: script } }]))
      // `(?i)` is RE2 (and PCRE) syntax that a JavaScript RegExp refuses.
      await coll.updateOne({ _id: 1 }, [{ $set: { boxy: { $regexMatch: { input: '$name', regex: '(?i)BOX' } } } }])
      assert.equal((await coll.findOne({ _id: 1 }))?.['boxy'], true)
    })

    it('refuses a field path through __proto__ in a stage', async () => {
      assert.equal((await serverError(coll.updateOne({ _id: 1 }, [{ $set: { '__proto__.x': 1 } }]))).code, 2)
      assert.equal(({} as Record<string, unknown>)['x'], undefined)
    })
  })
}
