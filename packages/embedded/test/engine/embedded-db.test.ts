import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

for (const kind of ENGINES) {
  describe(`EmbeddedDb (${kind})`, () => {
    const db = useEngine(kind)

    // That it fits the router's DriverDb is a root type test (test/types/public-api.test-d.ts).
    it('hands out one collection object per name', () => {
      assert.equal(db().collection('a'), db().collection('a'))
      assert.notEqual(db().collection('a'), db().collection('b'))
    })

    it('keeps collections apart', async () => {
      await db().collection('left').insertOne({ _id: 1 })
      assert.equal(await db().collection('right').countDocuments({}), 0)
    })

    it('dropDatabase removes every document and index, and collections stay usable', async () => {
      const coll = db().collection('dropme')
      await coll.createIndex({ k: 1 }, { unique: true })
      await coll.insertOne({ _id: 1, k: 1 })
      await db().dropDatabase()
      assert.equal(await coll.countDocuments({}), 0)
      assert.equal(await db().collection('left').countDocuments({}), 0)
      await coll.insertOne({ _id: 1, k: 1 })
      await coll.insertOne({ _id: 2, k: 1 })
      assert.equal(await coll.countDocuments({ k: 1 }), 2)
    })

    it('counts as the driver does: countDocuments() without a filter counts every document, estimatedDocumentCount() the collection', async () => {
      const coll = db().collection('counted')
      for (const _id of [1, 2, 3]) await coll.insertOne({ _id })
      assert.equal(await coll.countDocuments(), 3)
      assert.equal(await coll.estimatedDocumentCount(), 3)
      assert.equal(await db().collection('never-written').estimatedDocumentCount(), 0)
    })

    it('rejects invalid collection names with InvalidNamespace, as the server does', () => {
      for (const name of ['', 'a$b', 'a\u0000b']) {
        assert.throws(() => db().collection(name), { name: 'MongoServerError', code: 73, codeName: 'InvalidNamespace' })
      }
    })
  })
}

describe('EmbeddedDb.close', () => {
  it('lets queued writes finish, then refuses further use', async () => {
    const dir = await makeTempDir('close')
    try {
      const db = await openEmbedded({ path: dir })
      const coll = db.collection('c')
      const writes = Array.from({ length: 20 }, (_, i) => coll.insertOne({ _id: i }))
      await db.close()
      await Promise.all(writes)
      await assert.rejects(coll.insertOne({ _id: 99 }), { name: 'MongoNotConnectedError' })
      assert.throws(() => db.collection('c'))
      await db.close()
      const reopened = await openEmbedded({ path: dir })
      assert.equal(await reopened.collection('c').countDocuments({}), 20)
      await reopened.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
