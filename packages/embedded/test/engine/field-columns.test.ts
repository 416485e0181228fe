import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { documentsExamined } from '../../src/read/scan-documents.ts'
import { ENGINES, useEngine } from './engines.ts'

/**
 * A sort without an index walks an in-memory column of the sort fields (field-columns.ts) instead of
 * reading every document, and reads only the page from storage. The column must never be stale: after
 * every kind of write, and while a write is not acknowledged yet, sorted reads see what plain reads see.
 */

/** A missing `n` sorts below every number, as null does on the server. */
const nOf = (doc: Record<string, unknown>) => (doc['n'] as number | undefined) ?? Number.NEGATIVE_INFINITY
const compare = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0)

for (const kind of ENGINES) {
  describe(`sorted reads after writes, through the field column (${kind})`, () => {
    const db = useEngine(kind)
    const items = () => db().collection('items')
    /** The sorted page, its filter read from the column too, and the same answer sorted by hand from a plain read. */
    async function check(label: string): Promise<void> {
      const all = await items().find({}).toArray()
      const byN = [...all].sort((a, b) => compare(nOf(a), nOf(b)) || compare(a['_id'] as number, b['_id'] as number))
      const page = await items().find({}, { sort: { n: 1, _id: 1 }, limit: 5 }).toArray()
      assert.deepEqual(page, byN.slice(0, 5), `${label}: sorted page`)
      const top = await items().find({ tag: 'b' }, { sort: { n: -1, _id: 1 }, limit: 3 }).toArray()
      const expected = byN.filter((doc) => doc['tag'] === 'b').sort((a, b) => compare(nOf(b), nOf(a)) || compare(a['_id'] as number, b['_id'] as number))
      assert.deepEqual(top, expected.slice(0, 3), `${label}: filtered sorted page`)
    }

    it('serves a sorted page from the column, examining every document but reading only the page', async () => {
      await Promise.all(Array.from({ length: 40 }, (_, i) => items().insertOne({ _id: i, n: (i * 7) % 40, tag: i % 2 === 0 ? 'a' : 'b' })))
      await check('seeded')
      const before = documentsExamined()
      const page = await items().find({}, { sort: { n: 1 }, limit: 2 }).toArray()
      assert.deepEqual(page.map((doc) => doc['n']), [0, 1])
      assert.equal(documentsExamined() - before, 40)
    })

    it('is never stale after a write of any kind', async () => {
      await check('before')
      await items().insertOne({ _id: 100, n: -1, tag: 'b' })
      await check('insertOne')
      await items().updateOne({ _id: 3 }, { $set: { n: -10 } })
      await check('updateOne')
      await items().updateMany({ tag: 'a' }, { $inc: { n: 100 } })
      await check('updateMany')
      await items().replaceOne({ _id: 5 }, { n: -20, tag: 'b' })
      await check('replaceOne')
      await items().findOneAndUpdate({ _id: 7 }, { $set: { n: 1000 } })
      await check('findOneAndUpdate')
      await items().findOneAndReplace({ _id: 9 }, { n: -30, tag: 'a' })
      await check('findOneAndReplace')
      await items().findOneAndDelete({ _id: 5 })
      await check('findOneAndDelete')
      await items().deleteOne({ _id: 100 })
      await check('deleteOne')
      await items().deleteMany({ n: { $lt: 0 } })
      await check('deleteMany')
      await items().updateOne({ _id: 200 }, { $set: { n: -50, tag: 'b' } }, { upsert: true })
      await check('upsert')
      await items().updateOne({ _id: 11 }, { $unset: { n: '' } })
      await check('$unset of the sort field')
      await items().updateOne({ _id: 11 }, { $set: { n: 2 } })
      await check('set again')
    })

    it('is never stale after concurrent writes sharing one commit, nor read during them', async () => {
      await check('before')
      const writes = Array.from({ length: 10 }, (_, i) => items().updateOne({ _id: i * 2 + 1 }, { $set: { n: -100 - i } }))
      // A read while the writes are in flight sees the data before or after each, never an old column later.
      const during = await items().find({}, { sort: { n: 1 }, limit: 1 }).toArray()
      assert.equal(during.length, 1)
      await Promise.all(writes)
      await check('after concurrent updates')
      assert.equal((await items().find({}, { sort: { n: 1 }, limit: 1 }).toArray())[0]!['n'], -109)
    })

    it('is never stale after the collection is dropped and written again', async () => {
      await check('before')
      await db().dropCollection('items')
      assert.deepEqual(await items().find({}, { sort: { n: 1 }, limit: 5 }).toArray(), [])
      await items().insertOne({ _id: 1, n: 5, tag: 'b' })
      await check('after drop and insert')
    })
  })
}
