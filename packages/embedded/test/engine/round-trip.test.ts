import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Binary, Decimal128, Long, ObjectId } from 'mongodb'
import { ENGINES, must, useEngine } from './engines.ts'

for (const kind of ENGINES) {
  describe(`round-trip (${kind})`, () => {
    const db = useEngine(kind)

    it('stores ObjectIds, dates, nested documents and arrays exactly', async () => {
      const coll = db().collection('types')
      const ref = new ObjectId()
      const doc = {
        _id: new ObjectId(),
        ref,
        at: new Date('2024-02-29T12:34:56.789Z'),
        nested: { a: { b: [1, 'two', { c: null }] }, empty: {} },
        list: [ref, new Date(0), [1, [2]]],
        int: 42,
        double: 1.5,
        negative: -7,
        big: Long.fromString('9007199254740993'),
        dec: Decimal128.fromString('1.10'),
        bin: new Binary(Buffer.from([1, 2, 3])),
        flag: false,
        nil: null,
        text: 'héllo 🌍',
      }
      await coll.insertOne(doc)
      const back = await coll.findOne({ _id: doc._id })
      assert.ok(back)
      assert.ok(back['ref'] instanceof ObjectId, 'ObjectId class is the driver one')
      assert.ok(back['at'] instanceof Date)
      assert.deepEqual(back, doc)
    })

    it('generates an ObjectId _id and returns it as insertedId', async () => {
      const coll = db().collection('generated')
      const input: Record<string, unknown> = { name: 'x' }
      const result = await coll.insertOne(input)
      assert.equal(result.acknowledged, true)
      assert.ok(result.insertedId instanceof ObjectId)
      assert.equal(input['_id'], result.insertedId, 'like the driver, the input gets the _id')
      const back = await coll.findOne({ _id: result.insertedId })
      assert.deepEqual(back, { _id: result.insertedId, name: 'x' })
      assert.deepEqual(Object.keys(back ?? {}), ['_id', 'name'])
    })

    it('returns fresh copies: mutating results or inputs never changes stored data', async () => {
      const coll = db().collection('copies')
      const input = { _id: 1, tags: ['a'], sub: { n: 1 } }
      await coll.insertOne(input)
      input.tags.push('mutated-input')
      const first = await coll.findOne({ _id: 1 })
      assert.ok(first)
      ;(first['tags'] as string[]).push('mutated-output')
      ;(first['sub'] as { n: number }).n = 99
      const listed = await coll.find({}).toArray()
      ;(must(listed[0])['tags'] as string[]).push('mutated-list')
      const updated = await coll.findOneAndUpdate({ _id: 1 }, { $set: { x: 1 } }, { returnDocument: 'after' })
      ;(must(updated)['tags'] as string[]).push('mutated-update')
      assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, tags: ['a'], sub: { n: 1 }, x: 1 })
    })

    it('stores undefined as null, like the driver', async () => {
      const coll = db().collection('undef')
      await coll.insertOne({ _id: 1, gone: undefined })
      assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, gone: null })
    })

    it('refuses an array _id', async () => {
      const coll = db().collection('badid')
      await assert.rejects(coll.insertOne({ _id: [1, 2] }), { code: 53 })
      assert.equal(await coll.countDocuments({}), 0)
    })
  })
}
