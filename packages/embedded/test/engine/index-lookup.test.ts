import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { documentsDecoded } from '../../src/bson/bson-codec.ts'
import type { Document } from '../../src/document.ts'
import type { EmbeddedCollection } from '../../src/embedded-collection.ts'
import { EmbeddedDb } from '../../src/embedded-db.ts'
import { openEmbedded } from '../../src/open-embedded.ts'
import { MemoryStorage } from '../../src/storage/memory-storage.ts'
import type { CollectionStorage } from '../../src/storage/storage.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

const oid = new ObjectId()

/** Every shape an indexed field can take: the unique index keys each array element. */
const DOCS: Document[] = [
  { _id: 1, email: 'a@x', age: 30, owner: 'u1' },
  { _id: 2, email: 'b@x', age: 40, owner: 'u2' },
  { _id: 3, email: ['c@x', 'd@x'], age: 50 },
  { _id: 4, age: 60 },
  { _id: 5, email: 7 },
  { _id: 6, email: new Date(0) },
  { _id: 7, email: oid },
  { _id: 8, email: [['e@x']] },
  { _id: 9, email: { x: 1 } },
  { _id: 10, email: [] },
  { _id: 11, email: 'A@x' },
  { _id: 12, email: 0 },
  { _id: 13, email: true },
]

const FILTERS: Document[] = [
  { email: 'a@x' },
  { email: 'nobody@x' },
  { email: null },
  { email: 'c@x' },
  { email: 'd@x' },
  { email: ['c@x', 'd@x'] },
  { email: 'e@x' },
  { email: ['e@x'] },
  { email: 7 },
  { email: 7.0 },
  { email: -0 },
  { email: new Date(0) },
  { email: new ObjectId(oid.toHexString()) },
  { email: oid.toHexString() },
  { email: true },
  { email: { x: 1 } },
  { email: [] },
  { email: /^a/ },
  { email: { $regex: '^a', $options: 'i' } },
  { email: { $eq: 'a@x' } },
  { email: { $in: ['a@x', 'c@x', 'nobody@x'] } },
  { email: { $in: [] } },
  { email: { $in: ['a@x', null] } },
  { email: { $exists: true } },
  { email: { $ne: 'a@x' } },
  { email: 'a@x', owner: 'u1' },
  { email: 'a@x', owner: 'u2' },
  { email: 'a@x', _id: 2 },
  { email: 'a@x', _id: 1 },
  { $and: [{ email: 'b@x' }, { age: { $gte: 40 } }] },
  { $and: [{ email: 'b@x' }, { age: { $gt: 40 } }] },
  { $and: [{ owner: 'u1' }, { $and: [{ email: 'a@x' }] }] },
  { $or: [{ email: 'a@x' }, { email: 'b@x' }] },
  { age: { $gte: 40 } },
]

function idsOf(docs: Document[]): unknown[] {
  return docs.map((doc) => doc['_id'])
}

/** `indexed` has a unique index on `email`; `scanned` holds the same documents without one. */
async function twins(db: EmbeddedDb, name: string): Promise<[EmbeddedCollection, EmbeddedCollection]> {
  const indexed = db.collection(`${name}_indexed`)
  const scanned = db.collection(`${name}_scanned`)
  await indexed.createIndex({ email: 1 }, { unique: true })
  for (const doc of DOCS) {
    await indexed.insertOne({ ...doc })
    await scanned.insertOne({ ...doc })
  }
  return [indexed, scanned]
}

async function assertSameAnswers(indexed: EmbeddedCollection, scanned: EmbeddedCollection, filters: Document[]): Promise<void> {
  for (const filter of filters) {
    const expected = idsOf(await scanned.find(filter).toArray())
    assert.deepEqual(idsOf(await indexed.find(filter).toArray()), expected, `find(${JSON.stringify(filter)})`)
    assert.equal(await indexed.countDocuments(filter), expected.length, `countDocuments(${JSON.stringify(filter)})`)
  }
}

for (const kind of ENGINES) {
  describe(`unique index lookups (${kind})`, () => {
    const db = useEngine(kind)
    let indexed: EmbeddedCollection
    let scanned: EmbeddedCollection
    before(async () => {
      ;[indexed, scanned] = await twins(db(), 'people')
    })

    it('returns exactly what a scan returns, for every filter shape', async () => {
      await assertSameAnswers(indexed, scanned, FILTERS)
    })

    it('reads one document for an equality on the unique field', async () => {
      const start = documentsDecoded()
      assert.deepEqual(idsOf(await indexed.find({ email: 'a@x', owner: 'u1' }).toArray()), [1])
      assert.deepEqual(idsOf(await indexed.find({ $and: [{ email: 'd@x' }, { age: 50 }] }).toArray()), [3])
      assert.equal(await indexed.findOne({ email: 'nobody@x' }), null)
      assert.equal(documentsDecoded() - start, 2)
    })

    it('still scans for null, which also matches a missing field', async () => {
      const start = documentsDecoded()
      // Found only by a scan: the index holds no key for a document without the field.
      assert.deepEqual(idsOf(await indexed.find({ email: null }).toArray()), [4])
      // The scan reads `email` straight from each document's bytes: only the match is decoded.
      assert.equal(documentsDecoded() - start, 1)
    })

    it('follows updates, replacements and deletes that change the indexed value', async () => {
      const [coll, twin] = await twins(db(), 'changes')
      const filters = [{ email: 'a@x' }, { email: 'z@x' }, { email: 'b@x' }, { email: 'c@x' }, { email: 'y@x' }, { email: 'w@x' }]
      for (const target of [coll, twin]) {
        await target.updateOne({ email: 'a@x' }, { $set: { email: 'z@x' } })
        await target.replaceOne({ email: 'b@x' }, { email: 'y@x', age: 41 })
        await target.findOneAndUpdate({ email: 'c@x' }, { $set: { email: ['w@x', 'c2@x'] } })
        await target.deleteOne({ email: 'y@x' })
      }
      await assertSameAnswers(coll, twin, filters)
      // Freed values can be taken again, and are found under their new owner.
      for (const target of [coll, twin]) {
        await target.insertOne({ _id: 20, email: 'a@x' })
        await target.insertOne({ _id: 21, email: 'y@x' })
        await target.updateMany({ email: { $in: ['w@x', 'z@x'] } }, { $set: { moved: true } })
        await target.deleteMany({ email: 'z@x' })
      }
      await assertSameAnswers(coll, twin, [...filters, { moved: true }])
    })

    it('stops using an index once it is dropped', async () => {
      const [coll, twin] = await twins(db(), 'dropped')
      await coll.dropIndex('email_1')
      await coll.insertOne({ _id: 30, email: 'a@x' })
      await twin.insertOne({ _id: 30, email: 'a@x' })
      await assertSameAnswers(coll, twin, [{ email: 'a@x' }])
    })
  })
}

describe('unique index lookups after reopening (lmdb)', () => {
  it('loads the index on the first read, without waiting for a write', async () => {
    const dir = await makeTempDir('lookup')
    try {
      const first = await openEmbedded({ path: dir })
      await twins(first, 'reopened')
      await first.close()
      const db = await openEmbedded({ path: dir })
      const indexed = db.collection('reopened_indexed')
      await assertSameAnswers(indexed, db.collection('reopened_scanned'), FILTERS)
      const start = documentsDecoded()
      assert.deepEqual(idsOf(await indexed.find({ email: 'b@x' }).toArray()), [2])
      assert.equal(documentsDecoded() - start, 1)
      await db.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/** Memory storage whose writes stay pending (already visible, not yet acknowledged) until released. */
class GatedStorage extends MemoryStorage {
  gate: Promise<void> | undefined

  override collection(name: string): CollectionStorage {
    const inner = super.collection(name)
    return {
      get: (key) => inner.get(key),
      scan: () => inner.scan(),
      visit: (visit) => inner.visit(visit),
      version: () => inner.version(),
      indexRange: (index, range) => inner.indexRange(index, range),
      clearIndex: (index) => inner.clearIndex(index),
      flushed: () => inner.flushed(),
      transact: (body, more) => inner.transact(body, more),
      write: async (batch) => {
        await inner.write(batch)
        await this.gate
      },
    }
  }
}

describe('unique index lookups during a write', () => {
  it('reads a change through the index while its write is not yet acknowledged', async () => {
    const storage = new GatedStorage()
    const db = new EmbeddedDb(storage, 'embedded')
    const coll = db.collection('moving')
    await coll.createIndex({ email: 1 }, { unique: true })
    await coll.insertOne({ _id: 1, email: 'old@x' })
    let release = () => {}
    storage.gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const update = coll.updateOne({ _id: 1 }, { $set: { email: 'new@x' } })
    const removal = coll.deleteOne({ email: 'new@x' })
    await new Promise((resolve) => setImmediate(resolve))
    // Storage already holds the new value; reads must see it, as a scan does.
    assert.equal((await coll.findOne({ email: 'new@x' }))?.['_id'], 1)
    assert.equal(await coll.findOne({ email: 'old@x' }), null)
    release()
    await update
    assert.equal((await removal).deletedCount, 1)
    assert.equal(await coll.findOne({ email: 'new@x' }), null)
    await db.close()
  })
})
