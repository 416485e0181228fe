import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

/**
 * Views (`createCollection(name, { viewOn, pipeline })`): read-only, every read runs the view's
 * pipeline over its source; writes fail with CommandNotSupportedOnView (166), as on the server.
 */
for (const kind of ENGINES) {
  describe(`views (${kind})`, () => {
    const db = useEngine(kind)

    it('answers find, count, distinct and aggregate through the pipeline, and views on views', async () => {
      for (const doc of [{ _id: 1, x: 1, t: 'a' }, { _id: 2, x: 2, t: 'b' }, { _id: 3, x: 3, t: 'b' }]) await db().collection('base').insertOne(doc)
      await db().createCollection('big', { viewOn: 'base', pipeline: [{ $match: { x: { $gt: 1 } } }] })
      const big = db().collection('big')
      assert.deepEqual(await big.find({}, { sort: { x: -1 } }).toArray(), [{ _id: 3, x: 3, t: 'b' }, { _id: 2, x: 2, t: 'b' }])
      assert.deepEqual(await big.find({ t: 'b' }, { sort: { x: 1 }, skip: 1, limit: 1, projection: { x: 1 } }).toArray(), [{ _id: 3, x: 3 }])
      assert.equal(await big.countDocuments({}), 2)
      assert.deepEqual(await big.distinct('t'), ['b'])
      assert.deepEqual(await big.aggregate([{ $group: { _id: null, n: { $sum: '$x' } } }]).toArray(), [{ _id: null, n: 5 }])
      await db().createCollection('bigger', { viewOn: 'big', pipeline: [{ $match: { x: { $gt: 2 } } }] })
      assert.deepEqual(await db().collection('bigger').find({}).toArray(), [{ _id: 3, x: 3, t: 'b' }])
      const joined = await db().collection('base').aggregate([{ $match: { _id: 1 } }, { $lookup: { from: 'big', localField: 't', foreignField: 't', as: 'same' } }]).toArray()
      assert.deepEqual(joined, [{ _id: 1, x: 1, t: 'a', same: [] }])
    })

    it('is listed as a view, refuses writes with 166, and is dropped like a collection', async () => {
      const infos = await db().listCollections({ name: 'big' }).toArray()
      assert.deepEqual(infos, [{ name: 'big', type: 'view', options: { viewOn: 'base', pipeline: [{ $match: { x: { $gt: 1 } } }] }, info: { readOnly: true } }])
      const big = db().collection('big')
      const view = { code: 166, codeName: 'CommandNotSupportedOnView' }
      await assert.rejects(big.insertOne({ x: 9 }), view)
      await assert.rejects(big.updateOne({}, { $set: { x: 9 } }), view)
      await assert.rejects(big.deleteMany({}), view)
      await assert.rejects(big.findOneAndDelete({}), view)
      await assert.rejects(big.createIndex({ x: 1 }), view)
      await assert.rejects(db().collection('base').aggregate([{ $out: 'big' }]).toArray(), view)
      await assert.rejects(db().createCollection('big', { viewOn: 'base' }), { code: 48 })
      await assert.rejects(db().createCollection('v2', { viewOn: 5 as unknown as string }), { code: 14 })
      await assert.rejects(db().createCollection('v2', { viewOn: 'base', pipeline: [{ $out: 'x' }] }), { code: 2 })
      assert.equal(await db().dropCollection('bigger'), true)
      assert.ok(!db().listCollectionNames().includes('bigger'))
      assert.equal(await db().collection('base').countDocuments({}), 3)
    })
  })
}

describe('views are durable', () => {
  it('keeps a view across a reopen', async () => {
    const dir = await makeTempDir('views')
    try {
      const first = await openEmbedded({ path: dir })
      await first.collection('base').insertOne({ _id: 1, x: 1 })
      await first.createCollection('v', { viewOn: 'base', pipeline: [{ $project: { x: 1, y: { $add: ['$x', 1] } } }] })
      await first.close()
      const second = await openEmbedded({ path: dir })
      assert.deepEqual(await second.collection('v').find({}).toArray(), [{ _id: 1, x: 1, y: 2 }])
      await second.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
