import assert from 'node:assert/strict'
import { beforeEach, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import type { EmbeddedCollection } from '../../src/open-embedded.ts'
import { ENGINES, must, useEngine } from './engines.ts'

const itemA = new ObjectId()
const itemB = new ObjectId()

for (const kind of ENGINES) {
  describe(`updates (${kind})`, () => {
    const db = useEngine(kind)
    let coll: EmbeddedCollection
    let run = 0
    beforeEach(async () => {
      coll = db().collection(`doc${run++}`)
      await coll.insertOne({
        _id: 1,
        name: 'box',
        count: 1,
        tags: ['a', 'b', 'a'],
        meta: { color: 'red' },
        items: [{ _id: itemA, label: 'A', qty: 1 }, { _id: itemB, label: 'B', qty: 2 }],
      })
    })

    const after = { returnDocument: 'after' } as const

    it('$set, $unset and $inc, including dotted paths', async () => {
      const doc = await coll.findOneAndUpdate({ _id: 1 }, { $set: { 'meta.size': 3, name: 'crate' }, $unset: { 'meta.color': '' }, $inc: { count: 4, fresh: 2 } }, after)
      assert.deepEqual({ name: doc?.['name'], count: doc?.['count'], fresh: doc?.['fresh'], meta: doc?.['meta'] }, { name: 'crate', count: 5, fresh: 2, meta: { size: 3 } })
      assert.deepEqual(await coll.findOne({ _id: 1 }), doc)
    })

    it('$push a single value and $push with $each', async () => {
      await coll.updateOne({ _id: 1 }, { $push: { tags: 'c' } })
      const doc = await coll.findOneAndUpdate({ _id: 1 }, { $push: { tags: { $each: ['d', 'e'] } } }, after)
      assert.deepEqual(doc?.['tags'], ['a', 'b', 'a', 'c', 'd', 'e'])
    })

    it('$pull by value and by a condition on embedded _id', async () => {
      await coll.updateOne({ _id: 1 }, { $pull: { tags: 'a' } })
      const doc = await coll.findOneAndUpdate({ _id: 1 }, { $pull: { items: { _id: itemA } } }, after)
      assert.deepEqual(doc?.['tags'], ['b'])
      assert.deepEqual(doc?.['items'], [{ _id: itemB, label: 'B', qty: 2 }])
    })

    it('adds an embedded item with $push and patches it through arrayFilters on e._id', async () => {
      const itemC = new ObjectId()
      await coll.updateOne({ _id: 1 }, { $push: { items: { _id: itemC, label: 'C', qty: 0 } } })
      const doc = await coll.findOneAndUpdate(
        { _id: 1 },
        { $set: { 'items.$[e].label': 'C2', 'items.$[e].qty': 7 } },
        { ...after, arrayFilters: [{ 'e._id': new ObjectId(itemC.toHexString()) }] }
      )
      assert.deepEqual(doc?.['items'], [
        { _id: itemA, label: 'A', qty: 1 },
        { _id: itemB, label: 'B', qty: 2 },
        { _id: itemC, label: 'C2', qty: 7 },
      ])
    })

    it('resolves array filters once, before the update changes the filtered field', async () => {
      const doc = await coll.findOneAndUpdate(
        { _id: 1 },
        { $set: { 'items.$[e].qty': 5, 'items.$[e].label': 'changed' } },
        { ...after, arrayFilters: [{ 'e.qty': 1 }] }
      )
      assert.deepEqual(doc?.['items'], [{ _id: itemA, label: 'changed', qty: 5 }, { _id: itemB, label: 'B', qty: 2 }])
    })

    it('updates every element with $[] and nothing when no element passes the array filter', async () => {
      await coll.updateOne({ _id: 1 }, { $inc: { 'items.$[].qty': 1 } })
      const none = await coll.updateOne({ _id: 1 }, { $set: { 'items.$[e].qty': 0 } }, { arrayFilters: [{ 'e.label': 'Z' }] })
      assert.deepEqual(none, { matchedCount: 1, modifiedCount: 0 })
      const doc = await coll.findOne({ _id: 1 })
      assert.deepEqual((must(doc)['items'] as { qty: number }[]).map((i) => i.qty), [2, 3])
    })

    it('updates two fields of the element matched by $, even when one is in the filter', async () => {
      const doc = await coll.findOneAndUpdate({ _id: 1, 'items.qty': 2 }, { $set: { 'items.$.qty': 20, 'items.$.label': 'b2' } }, after)
      assert.deepEqual(doc?.['items'], [{ _id: itemA, label: 'A', qty: 1 }, { _id: itemB, label: 'b2', qty: 20 }])
    })

    it('updates the element matched by the positional $ operator', async () => {
      const doc = await coll.findOneAndUpdate({ _id: 1, 'items._id': itemB }, { $inc: { 'items.$.qty': 10 } }, after)
      assert.deepEqual((must(doc)['items'] as { qty: number }[]).map((i) => i.qty), [1, 12])
    })

    it('updateOne reports matched and modified counts, with no-op updates not modified', async () => {
      assert.deepEqual(await coll.updateOne({ _id: 1 }, { $set: { name: 'box' } }), { matchedCount: 1, modifiedCount: 0 })
      assert.deepEqual(await coll.updateOne({ _id: 1 }, { $set: { name: 'bin' } }), { matchedCount: 1, modifiedCount: 1 })
      assert.deepEqual(await coll.updateOne({ _id: 2 }, { $set: { name: 'bin' } }), { matchedCount: 0, modifiedCount: 0 })
    })

    it('top-level $set and $unset: fields keep their place, new ones follow in order, equal values and absent fields change nothing', async () => {
      const doc = await coll.findOneAndUpdate({ _id: 1 }, { $set: { zeta: 1, name: 'crate', alpha: [1, { b: 2 }] }, $unset: { count: '', absent: '' } }, after)
      assert.deepEqual(Object.keys(must(doc)), ['_id', 'name', 'tags', 'meta', 'items', 'zeta', 'alpha'])
      assert.deepEqual(await coll.findOne({ _id: 1 }), doc)
      const same = { $set: { name: 'crate', meta: { color: 'red' }, alpha: [1, { b: 2 }] }, $unset: { count: '' } }
      assert.deepEqual(await coll.updateOne({ _id: 1 }, same), { matchedCount: 1, modifiedCount: 0 })
      const before = await coll.findOneAndUpdate({ _id: 1 }, { $set: { name: 'bin' } }, { returnDocument: 'before' })
      assert.equal(before?.['name'], 'crate')
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { name: 'x' }, $unset: { name: '' } }), { code: 40 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { _id: 2 } }), { code: 66 })
      assert.equal((await coll.findOne({ _id: 1 }))?.['name'], 'bin')
    })

    it('findOneAndUpdate returns null when nothing matches', async () => {
      assert.equal(await coll.findOneAndUpdate({ _id: 2 }, { $set: { x: 1 } }, after), null)
    })

    it('findOneAndReplace replaces every field but keeps _id', async () => {
      const doc = await coll.findOneAndReplace({ name: 'box' }, { name: 'new', extra: true }, after)
      assert.deepEqual(doc, { _id: 1, name: 'new', extra: true })
      assert.deepEqual(await coll.findOne({ _id: 1 }), doc)
      assert.equal(await coll.findOneAndReplace({ name: 'box' }, { name: 'x' }, after), null)
    })

    it('refuses to change _id through an update or a replacement', async () => {
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { _id: 2 } }), { code: 66 })
      await assert.rejects(coll.findOneAndReplace({ _id: 1 }, { _id: 2, name: 'x' }, after), { code: 66 })
      assert.equal((await coll.findOne({ _id: 1 }))?.['name'], 'box')
    })

    it('refuses updates the server refuses, leaving the document unchanged', async () => {
      await assert.rejects(coll.updateOne({ _id: 1 }, { $inc: { name: 1 } }), { code: 14 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $inc: { count: 'x' } }), { code: 14 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $push: { name: 'x' } }), { code: 2 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { 'name.first': 'x' } }), { code: 28 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { 'items.$[e].qty': 1 } }), { code: 2 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { 'items.$[e].qty': 1 } }, { arrayFilters: [{ 'e._id': itemA }, { 'f.x': 1 }] }), { code: 9 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $bogus: { a: 1 } }), { code: 2 })
      await assert.rejects(coll.updateOne({ _id: 1 }, { name: 'no operators' }), { name: 'MongoInvalidArgumentError' })
      await assert.rejects(coll.findOneAndReplace({ _id: 1 }, { $set: { a: 1 } }, after), { name: 'MongoInvalidArgumentError' })
      assert.equal((await coll.findOne({ _id: 1 }))?.['name'], 'box')
    })

    it('deleteOne and deleteMany report deletedCount', async () => {
      await coll.insertOne({ _id: 2, name: 'box' })
      await coll.insertOne({ _id: 3, name: 'box' })
      await coll.insertOne({ _id: 4, name: 'other' })
      assert.deepEqual(await coll.deleteOne({ name: 'box' }), { deletedCount: 1 })
      assert.deepEqual(await coll.deleteMany({ name: 'box' }), { deletedCount: 2 })
      assert.deepEqual(await coll.deleteMany({ name: 'box' }), { deletedCount: 0 })
      assert.deepEqual((await coll.find({}).toArray()).map((d) => d['_id']), [4])
    })

    it('loses no update under concurrency: 100 concurrent $push and $inc on one document', async () => {
      await Promise.all(Array.from({ length: 100 }, (_, i) => coll.updateOne({ _id: 1 }, { $push: { log: i }, $inc: { count: 1 } })))
      const doc = await coll.findOne({ _id: 1 })
      assert.equal((must(doc)['log'] as number[]).length, 100)
      assert.deepEqual(new Set(must(doc)['log'] as number[]).size, 100)
      assert.equal(doc?.['count'], 101)
    })
  })
}
