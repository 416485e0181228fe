import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { MongoServerError } from 'mongodb'
import { ENGINES, must, useEngine } from './engines.ts'

const MiB = 1024 * 1024

for (const kind of ENGINES) {
  describe(`document size limit (${kind})`, () => {
    const db = useEngine(kind)

    it('stores a document just under 16 MiB', async () => {
      const coll = db().collection('big')
      await coll.insertOne({ _id: 'ok', blob: 'x'.repeat(16 * MiB - 100) })
      assert.equal((must(await coll.findOne({ _id: 'ok' }))['blob'] as string).length, 16 * MiB - 100)
    })

    it('refuses a document over 16 MiB on insert with code 10334, storing nothing', async () => {
      const coll = db().collection('too-big')
      const error = await coll.insertOne({ _id: 1, blob: 'x'.repeat(16 * MiB) }).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError)
      assert.equal(error.code, 10334)
      assert.equal(await coll.countDocuments({}), 0)
    })

    it('refuses a replace or update that grows a document past 16 MiB, keeping the old one', async () => {
      const coll = db().collection('grow')
      await coll.insertOne({ _id: 1, blob: 'x'.repeat(9 * MiB) })
      await assert.rejects(coll.findOneAndReplace({ _id: 1 }, { blob: 'y'.repeat(17 * MiB) }, { returnDocument: 'after' }), { code: 10334 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { more: 'z'.repeat(8 * MiB) } }), { code: 10334 })
      const doc = await coll.findOne({ _id: 1 })
      assert.deepEqual(Object.keys(doc ?? {}), ['_id', 'blob'])
      assert.equal((must(doc)['blob'] as string)[0], 'x')
    })
  })

  describe(`maxTimeMS (${kind})`, () => {
    const db = useEngine(kind)
    const COUNT = 5_000
    before(async () => {
      const coll = db().collection('slow')
      const pad = 'p'.repeat(200)
      await Promise.all(Array.from({ length: COUNT }, (_, i) => coll.insertOne({ _id: i, pad, n: i })))
    })
    // A filter no document matches forces a full scan of COUNT documents: far more than 1 ms.
    const noMatch = { pad: { $regex: 'never$' } }

    it('completes a full scan when there is time', async () => {
      assert.equal(await db().collection('slow').countDocuments(noMatch, { maxTimeMS: 60_000 }), 0)
    })

    it('stops a long find with MaxTimeMSExpired (code 50)', async () => {
      const error = await db().collection('slow').find(noMatch, { maxTimeMS: 1 }).toArray().catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError, String(error))
      assert.equal(error.code, 50)
      assert.equal(error.codeName, 'MaxTimeMSExpired')
    })

    it('stops a long sorted find, count, update and delete too', async () => {
      const coll = db().collection('slow')
      await assert.rejects(coll.find(noMatch, { sort: { n: -1 }, maxTimeMS: 1 }).toArray(), { code: 50 })
      await assert.rejects(coll.countDocuments(noMatch, { maxTimeMS: 1 }), { code: 50 })
      await assert.rejects(coll.findOne(noMatch, { maxTimeMS: 1 }), { code: 50 })
      await assert.rejects(coll.updateOne(noMatch, { $set: { x: 1 } }, { maxTimeMS: 1 }), { code: 50 })
      await assert.rejects(coll.deleteMany(noMatch, { maxTimeMS: 1 }), { code: 50 })
      assert.equal(await coll.countDocuments({}), COUNT)
    })
  })
}
