import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { documentsDecoded } from '../../src/bson/bson-codec.ts'
import { ENGINES, useEngine } from './engines.ts'

/**
 * `findOne({ _id: <ObjectId> })`, GET one's read, answers from the document's key alone: the same
 * answers as a cursor read, one document decoded, and anything more (options, other conditions,
 * a view) reads through the cursor as before.
 */
for (const kind of ENGINES) {
  describe(`findOne by ObjectId (${kind})`, () => {
    const db = useEngine(kind)
    const ids = [new ObjectId(), new ObjectId(), new ObjectId()]
    before(async () => {
      const users = db().collection('users')
      for (const [i, _id] of ids.entries()) await users.insertOne({ _id, name: `u${i}`, age: 20 + i })
      // A string _id spelling an ObjectId's hex is another value: it never matches the ObjectId.
      await users.insertOne({ _id: ids[0]!.toHexString(), name: 'hex string' })
      await db().createCollection('adults', { viewOn: 'users', pipeline: [{ $match: { age: { $gt: 20 } } }] })
    })

    it('answers the document, decoding only it, for { _id } and { _id: { $eq } }', async () => {
      const users = db().collection('users')
      const start = documentsDecoded()
      assert.deepEqual(await users.findOne({ _id: ids[1] }), { _id: ids[1], name: 'u1', age: 21 })
      assert.equal(documentsDecoded() - start, 1)
      assert.deepEqual(await users.findOne({ _id: { $eq: ids[2] } }), { _id: ids[2], name: 'u2', age: 22 })
      assert.deepEqual(await users.findOne({ _id: ids[0] }), { _id: ids[0], name: 'u0', age: 20 })
      assert.deepEqual(await users.findOne({ _id: ids[0]!.toHexString() }), { _id: ids[0]!.toHexString(), name: 'hex string' })
    })

    it('answers null for a missing id, and sees the latest write', async () => {
      const users = db().collection('users')
      assert.equal(await users.findOne({ _id: new ObjectId() }), null)
      await users.updateOne({ _id: ids[2] }, { $set: { age: 40 } })
      assert.equal((await users.findOne({ _id: ids[2] }))?.['age'], 40)
    })

    it('keeps the other conditions, the options and views', async () => {
      const users = db().collection('users')
      assert.equal(await users.findOne({ _id: ids[1], age: 99 }), null)
      assert.deepEqual(await users.findOne({ _id: ids[1] }, { projection: { name: 1 } }), { _id: ids[1], name: 'u1' })
      assert.equal(await db().collection('adults').findOne({ _id: ids[0] }), null)
      assert.equal((await db().collection('adults').findOne({ _id: ids[1] }))?.['name'], 'u1')
    })
  })
}
