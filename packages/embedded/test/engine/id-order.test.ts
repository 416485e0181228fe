import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import type { Document, FindOptions } from '../../src/document.ts'
import type { EmbeddedCollection } from '../../src/embedded-collection.ts'
import { documentsExamined } from '../../src/read/scan-documents.ts'
import { ENGINES, useEngine } from './engines.ts'

/** 600 ObjectIds (more than two of lmdb-storage's read batches), inserted in a shuffled order. */
const SORTED = Array.from({ length: 600 }, (_, i) => new ObjectId((0x10_0000 + i * 37).toString(16).padStart(24, '0')))
const INSERTED = SORTED.map((_, i) => SORTED[(i * 7919) % SORTED.length]!)
const hex = (docs: Document[]) => docs.map((doc) => String(doc['_id']))
const slice = (from: number, to: number) => SORTED.slice(from, to).map(String)

for (const kind of ENGINES) {
  describe(`sorts and ranges on ObjectId _ids (${kind})`, () => {
    const db = useEngine(kind)
    let items: EmbeddedCollection
    let mixed: EmbeddedCollection

    before(async () => {
      items = db().collection('items')
      await Promise.all(INSERTED.map((_id, n) => items.insertOne({ _id, n })))
      mixed = db().collection('mixed')
      await Promise.all([...INSERTED.slice(0, 50), 7, 'seven'].map((_id) => mixed.insertOne({ _id })))
    })

    /**
     * The answer of `find`, and on disk the documents it examined: lmdb keeps its keys in order, so a
     * walk of the ObjectId keys reads only what the page returns (plus a bound equal to an exclusive
     * limit). The memory backend's keys have no order: it scans, with the same answers.
     */
    async function assertPage(filter: Document, options: FindOptions, expected: string[], examinedOnDisk: number): Promise<void> {
      const start = documentsExamined()
      const got = hex(await items.find(filter, options).toArray())
      const what = `find(${JSON.stringify(filter)}, ${JSON.stringify(options)})`
      assert.deepEqual(got, expected, what)
      if (kind === 'lmdb') assert.equal(documentsExamined() - start, examinedOnDisk, `documents examined by ${what}`)
    }

    it('serves a sort on _id from the key order, in both directions, stopping after skip + limit, the skipped keys unread', async () => {
      await assertPage({}, { sort: { _id: 1 }, limit: 20 }, slice(0, 20), 20)
      await assertPage({}, { sort: { _id: -1 }, limit: 20 }, slice(580, 600).reverse(), 20)
      await assertPage({}, { sort: { _id: 1 }, skip: 290, limit: 10 }, slice(290, 300), 10)
      await assertPage({}, { sort: { _id: 1 } }, slice(0, 600), 600)
      await assertPage({}, { sort: { _id: -1 } }, slice(0, 600).reverse(), 600)
    })

    it('starts at the bound of an _id range: a page after a cursor costs what the first one does', async () => {
      const at = SORTED[300]!
      await assertPage({ _id: { $gt: at } }, { sort: { _id: 1 }, limit: 25 }, slice(301, 326), 26)
      await assertPage({ _id: { $gte: at } }, { sort: { _id: 1 }, limit: 25 }, slice(300, 325), 25)
      await assertPage({ _id: { $lt: at } }, { sort: { _id: -1 }, limit: 25 }, slice(275, 300).reverse(), 26)
      await assertPage({ _id: { $lte: at } }, { sort: { _id: -1 }, limit: 25 }, slice(276, 301).reverse(), 25)
      // Both ends inclusive, walked either way, across read batches.
      await assertPage({ _id: { $gte: SORTED[10], $lte: SORTED[590] } }, { sort: { _id: -1 } }, slice(10, 591).reverse(), 581)
      // Without a sort, in no particular order: on disk, key order.
      const unsorted = { $and: [{ _id: { $gte: SORTED[10], $lt: SORTED[20] } }] }
      if (kind === 'lmdb') await assertPage(unsorted, {}, slice(10, 20), 11)
      else assert.deepEqual(hex(await items.find(unsorted).toArray()).sort(), slice(10, 20))
      // The rest of the filter still applies.
      await assertPage({ _id: { $gt: at }, n: { $mod: [2, 0] } }, { sort: { _id: 1 }, limit: 3 }, hex(await items.find({ _id: { $gt: at }, n: { $mod: [2, 0] } }).toArray()).sort().slice(0, 3), kind === 'lmdb' ? documentsExaminedFor(at) : 0)
    })

    it('answers in BSON order when other _id types are present (numbers, strings before ObjectIds)', async () => {
      const got = (await mixed.find({}, { sort: { _id: 1 }, limit: 4 }).toArray()).map((doc) => doc['_id'])
      assert.deepEqual(got.slice(0, 2), [7, 'seven'])
      assert.deepEqual(got.slice(2).map(String), INSERTED.slice(0, 50).map(String).sort().slice(0, 2))
      const last = (await mixed.find({}, { sort: { _id: -1 }, limit: 1 }).toArray())[0]!['_id']
      assert.equal(String(last), INSERTED.slice(0, 50).map(String).sort().at(-1))
      assert.deepEqual((await mixed.find({ _id: { $gt: 5 } }).toArray()).map((doc) => doc['_id']), [7])
    })
  })
}

/** How many documents a walk from `at` (exclusive) examines to find three with an even `n`. */
function documentsExaminedFor(at: ObjectId): number {
  const after = SORTED.findIndex((id) => id.equals(at)) + 1
  const evens: number[] = []
  let examined = 1 // the bound itself
  for (let i = after; evens.length < 3; i++) {
    examined++
    if (INSERTED.findIndex((id) => id.equals(SORTED[i]!)) % 2 === 0) evens.push(i)
  }
  return examined
}
