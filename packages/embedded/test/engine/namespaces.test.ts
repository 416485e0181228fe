import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { before, describe, it } from 'node:test'
import { BSON, MongoServerError } from 'mongodb'
import { LmdbStorage } from '../../src/storage/lmdb-storage.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

/**
 * Collection and index names reach storage names: the engine refuses those MongoDB refuses
 * (InvalidNamespace 73, CannotCreateIndex 67) wherever a client can name one, so that two names
 * never reach one collection's (or index's) storage, and keeps its own `system.*` collections
 * read-only.
 */

const invalidNamespace = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 73)
  assert.equal(error.codeName, 'InvalidNamespace')
  assert.match(error.message, pattern)
  return true
}

describe('why: on disk, LMDB ends a database name at its first NUL byte', () => {
  it('reads collection a through the storage name a\\0b', async () => {
    const dir = await makeTempDir('nul-alias')
    const storage = new LmdbStorage(dir)
    try {
      await storage.collection('a').write({ puts: [['k', BSON.serialize({ _id: 1, in: 'a' })]] })
      const walk = storage.collection('a\u0000b').scan()
      const seen = [...{ [Symbol.iterator]: () => walk }].map((bytes) => BSON.deserialize(bytes))
      assert.deepEqual(seen, [{ _id: 1, in: 'a' }])
    } finally {
      await storage.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})

for (const kind of ENGINES) {
  describe(`collection and index names (${kind})`, () => {
    const db = useEngine(kind)
    before(async () => {
      await db().collection('a').insertOne({ _id: 1, in: 'a' })
    })

    it('refuses a name with a NUL byte, a $ or nothing, in collection() and wherever a pipeline names a collection', async () => {
      for (const name of ['a\u0000b', 'a$b', '']) assert.throws(() => db().collection(name), invalidNamespace(/^Invalid namespace specified: "embedded\./))
      const a = db().collection('a')
      const other = 'a\u0000b'
      const refused = invalidNamespace(/^Invalid namespace specified: "embedded\.a\\u0000b"$/)
      await assert.rejects(a.aggregate([{ $lookup: { from: other, localField: '_id', foreignField: '_id', as: 'j' } }]).toArray(), refused)
      await assert.rejects(a.aggregate([{ $lookup: { from: other, pipeline: [], as: 'j' } }]).toArray(), refused)
      await assert.rejects(a.aggregate([{ $unionWith: other }]).toArray(), refused)
      await assert.rejects(a.aggregate([{ $graphLookup: { from: other, startWith: 1, connectFromField: '_id', connectToField: '_id', as: 'g' } }]).toArray(), refused)
      await assert.rejects(db().aggregate([{ $documents: [{}] }, { $unionWith: 'a$b' }]).toArray(), invalidNamespace(/"embedded\.a\$b"/))
      await assert.rejects(db().createCollection('v', { viewOn: other }), invalidNamespace(/invalid name for 'viewOn'/))
      await assert.rejects(a.aggregate([{ $out: other }]).toArray(), invalidNamespace(/Invalid output collection name/))
    })

    it('keeps collection a out of reach of names that only differ after a NUL byte', async () => {
      // On disk, storage name a\0b is collection a (above): before names were checked, this $lookup joined a's documents.
      await assert.rejects(db().aggregate([{ $documents: [{ _id: 1 }] }, { $lookup: { from: 'a\u0000b', localField: '_id', foreignField: '_id', as: 'j' } }]).toArray(), { code: 73 })
      assert.deepEqual(await db().collection('a').find({}).toArray(), [{ _id: 1, in: 'a' }])
    })

    it('refuses writes to system.* collections, which hold the views, and lets them be read', async () => {
      await db().createCollection('va', { viewOn: 'a', pipeline: [{ $set: { seen: true } }] })
      const views = db().collection('system.views')
      const refused = invalidNamespace(/^cannot write to 'embedded\.system\.views'$/)
      await assert.rejects(views.insertOne({ _id: 'embedded.vb', viewOn: 'va', pipeline: [] }), refused)
      await assert.rejects(views.updateOne({}, { $set: { pipeline: [] } }), refused)
      await assert.rejects(views.deleteMany({}), refused)
      await assert.rejects(views.createIndex({ viewOn: 1 }), refused)
      await assert.rejects(db().dropCollection('system.views'), refused)
      await assert.rejects(db().createCollection('system.other'), invalidNamespace(/^cannot write to 'embedded\.system\.other'$/))
      for (const target of ['system.views', { db: 'embedded', coll: 'system.views' }]) {
        await assert.rejects(db().collection('a').aggregate([{ $out: target }]).toArray(), invalidNamespace(/Invalid output collection name/))
      }
      await assert.rejects(db().collection('a').aggregate([{ $merge: { into: 'system.views' } }]).toArray(), invalidNamespace(/Invalid output collection name/))
      assert.deepEqual(await views.find({}).toArray(), [{ _id: 'embedded.va', viewOn: 'a', pipeline: [{ $set: { seen: true } }] }])
      assert.deepEqual(await db().collection('va').find({}).toArray(), [{ _id: 1, in: 'a', seen: true }])
    })

    it('refuses an index name that is empty or holds a NUL byte with CannotCreateIndex', async () => {
      // Entries are stored under the index name and a 0 byte: x\0y's would fall inside x's.
      const a = db().collection('a')
      assert.equal(await a.createIndex({ in: 1 }, { name: 'x' }), 'x')
      for (const name of ['x\u0000y', '']) {
        await assert.rejects(a.createIndex({ _id: 1, in: 1 }, { name }), { code: 67, codeName: 'CannotCreateIndex' })
      }
      assert.deepEqual((await a.listIndexes().toArray()).map((index) => index['name']), ['_id_', 'x'])
      assert.deepEqual(await a.find({ in: 'a' }).toArray(), [{ _id: 1, in: 'a' }])
    })
  })
}
