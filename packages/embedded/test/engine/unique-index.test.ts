import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { MongoServerError, ObjectId } from 'mongodb'
import { openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

for (const kind of ENGINES) {
  describe(`unique indexes (${kind})`, () => {
    const db = useEngine(kind)

    it('refuses a duplicate _id with the driver error class and code 11000', async () => {
      const coll = db().collection('ids')
      const id = new ObjectId()
      await coll.insertOne({ _id: id })
      const error = await coll.insertOne({ _id: new ObjectId(id.toHexString()) }).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError)
      assert.equal(error.code, 11000)
      assert.deepEqual(error['keyValue'], { _id: id })
      assert.match(error.message, /^E11000 duplicate key error collection: embedded\.ids index: _id_ dup key: \{ _id: ObjectId\('[0-9a-f]{24}'\) \}$/)
      assert.equal(error.errmsg, error.message)
    })

    it('returns the index name and enforces a unique field on insert and update', async () => {
      const coll = db().collection('users')
      assert.equal(await coll.createIndex({ email: 1 }, { unique: true }), 'email_1')
      await coll.insertOne({ _id: 1, email: 'a@x' })
      await coll.insertOne({ _id: 2, email: 'b@x' })
      await assert.rejects(coll.insertOne({ _id: 3, email: 'a@x' }), { code: 11000, keyValue: { email: 'a@x' } })
      await assert.rejects(coll.updateOne({ _id: 2 }, { $set: { email: 'a@x' } }), { code: 11000, message: /index: email_1 dup key: \{ email: "a@x" \}/ })
      await assert.rejects(coll.findOneAndReplace({ _id: 2 }, { email: 'a@x' }, { returnDocument: 'after' }), { code: 11000 })
      assert.equal((await coll.findOne({ _id: 2 }))?.['email'], 'b@x')
      // The old key is released by an update and by a delete.
      await coll.updateOne({ _id: 1 }, { $set: { email: 'c@x' } })
      await coll.insertOne({ _id: 4, email: 'a@x' })
      await coll.deleteOne({ _id: 4 })
      await coll.insertOne({ _id: 5, email: 'a@x' })
    })

    it('treats a missing field as null: two documents without it collide', async () => {
      const coll = db().collection('missing')
      await coll.createIndex({ code: 1 }, { unique: true, name: 'by_code' })
      await coll.insertOne({ _id: 1 })
      await assert.rejects(coll.insertOne({ _id: 2, code: null }), { code: 11000, message: /index: by_code dup key: \{ code: null \}/ })
    })

    it('enforces compound unique indexes on the combination', async () => {
      const coll = db().collection('compound')
      await coll.createIndex({ a: 1, b: -1 }, { unique: true })
      await coll.insertOne({ a: 1, b: 1 })
      await coll.insertOne({ a: 1, b: 2 })
      await assert.rejects(coll.insertOne({ a: 1, b: 2 }), { code: 11000, keyValue: { a: 1, b: 2 }, message: /index: a_1_b_-1 / })
    })

    it('fails to create a unique index over existing duplicates, and does not enforce it', async () => {
      const coll = db().collection('dups')
      await coll.insertOne({ _id: 1, k: 'same' })
      await coll.insertOne({ _id: 2, k: 'same' })
      await assert.rejects(coll.createIndex({ k: 1 }, { unique: true }), { code: 11000 })
      await coll.insertOne({ _id: 3, k: 'same' })
    })

    it('is idempotent for an identical definition and refuses a conflicting one', async () => {
      const coll = db().collection('again')
      await coll.createIndex({ k: 1 }, { unique: true })
      assert.equal(await coll.createIndex({ k: 1 }, { unique: true }), 'k_1')
      await assert.rejects(coll.createIndex({ k: 1 }, { unique: false }), { code: 86 })
    })

    it('lets exactly one of 50 concurrent inserts of one key succeed', async () => {
      const coll = db().collection('race')
      await coll.createIndex({ slug: 1 }, { unique: true })
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => coll.insertOne({ slug: 'hello' })))
      const ok = results.filter((r) => r.status === 'fulfilled')
      const failed = results.filter((r) => r.status === 'rejected')
      assert.equal(ok.length, 1)
      assert.equal(failed.length, 49)
      for (const r of failed) assert.equal((r.reason as MongoServerError).code, 11000)
      assert.equal(await coll.countDocuments({ slug: 'hello' }), 1)
    })

    it('lets exactly one of 50 concurrent inserts of one _id succeed', async () => {
      const coll = db().collection('race-id')
      const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => coll.insertOne({ _id: 'same', i })))
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
      assert.equal(await coll.countDocuments({}), 1)
    })

    it('treats array values element by element (multikey)', async () => {
      const coll = db().collection('multikey')
      await coll.createIndex({ tags: 1 }, { unique: true })
      await coll.insertOne({ _id: 1, tags: ['a', 'b'] })
      await assert.rejects(coll.insertOne({ _id: 2, tags: ['c', 'b'] }), { code: 11000, keyValue: { tags: 'b' } })
      await coll.insertOne({ _id: 3, tags: ['c'] })
    })
  })
}

describe('unique indexes survive a restart (lmdb)', () => {
  it('rebuilds the index from disk and keeps enforcing it', async () => {
    const dir = await makeTempDir('restart')
    try {
      const first = await openEmbedded({ path: dir })
      await first.collection('users').createIndex({ email: 1 }, { unique: true })
      await first.collection('users').insertOne({ email: 'a@x' })
      await first.close()
      const second = await openEmbedded({ path: dir })
      await assert.rejects(second.collection('users').insertOne({ email: 'a@x' }), { code: 11000 })
      await second.dropDatabase()
      await second.collection('users').insertOne({ email: 'a@x' })
      assert.equal(await second.collection('users').countDocuments({}), 1)
      await second.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
