import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { before, describe, it } from 'node:test'
import { open } from 'lmdb'
import { Binary, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb'
import type { Document, FindOptions } from '../../src/document.ts'
import type { EmbeddedCollection } from '../../src/embedded-collection.ts'
import { openEmbedded } from '../../src/open-embedded.ts'
import { documentsExamined } from '../../src/read/scan-documents.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

const COUNT = 200

/** Document i: distinct ages (so sorted answers have no ties), a few names, tags as arrays. */
function person(i: number): Document {
  return { _id: i, age: (i * 37) % COUNT, name: `n${i % 10}`, city: i % 3 === 0 ? 'Paris' : 'Lyon', tags: [`t${i % 4}`, `t${i % 7}`] }
}

function idsOf(docs: Document[]): unknown[] {
  return docs.map((doc) => doc['_id'])
}

/** Runs `read` and returns its answer with the number of stored documents it examined. */
async function counted(read: () => Promise<Document[]>): Promise<{ docs: Document[], decoded: number }> {
  const start = documentsExamined()
  const docs = await read()
  return { docs, decoded: documentsExamined() - start }
}

async function fill(coll: EmbeddedCollection, count: number, make: (i: number) => Document): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, i) => coll.insertOne(make(i))))
}

for (const kind of ENGINES) {
  describe(`secondary indexes (${kind})`, () => {
    const db = useEngine(kind)
    let indexed: EmbeddedCollection
    let scanned: EmbeddedCollection

    before(async () => {
      indexed = db().collection('people')
      scanned = db().collection('people_scanned')
      await indexed.createIndex({ age: 1 })
      await indexed.createIndex({ name: 1, age: -1 })
      await indexed.createIndex({ tags: 1 })
      await fill(indexed, COUNT, person)
      await fill(scanned, COUNT, person)
    })

    /** The same answer as a scan (as sets when unsorted), decoding only `decoded` documents. */
    async function assertPlanned(filter: Document, options: FindOptions, decoded: number | 'matches'): Promise<void> {
      const expected = await scanned.find(filter, options).toArray()
      const got = await counted(() => indexed.find(filter, options).toArray())
      const order = (ids: unknown[]) => (options.sort ? ids : [...ids].sort((a, b) => Number(a) - Number(b)))
      assert.deepEqual(order(idsOf(got.docs)), order(idsOf(expected)), `find(${JSON.stringify(filter)}, ${JSON.stringify(options)})`)
      assert.equal(got.decoded, decoded === 'matches' ? expected.length : decoded, `documents decoded by find(${JSON.stringify(filter)})`)
    }

    it('reads only the matches of an equality, $in, a range or a prefix regex on an indexed field', async () => {
      await assertPlanned({ age: 74 }, {}, 'matches')
      await assertPlanned({ age: { $in: [3, 74, 1000] } }, {}, 'matches')
      await assertPlanned({ age: { $gte: 20, $lt: 30 } }, {}, 'matches')
      await assertPlanned({ age: { $gt: 190 } }, {}, 'matches')
      await assertPlanned({ age: { $lte: 5 } }, {}, 'matches')
      await assertPlanned({ name: 'n3' }, {}, 'matches')
      await assertPlanned({ name: 'n3', age: { $gt: 100 } }, {}, 'matches')
      await assertPlanned({ name: { $in: ['n1', 'n2'] }, age: { $lt: 50 } }, {}, 'matches')
      await assertPlanned({ name: /^n1/ }, {}, 'matches')
      await assertPlanned({ name: { $regex: '^n2' } }, {}, 'matches')
      await assertPlanned({ name: { $regex: '^n[12]' } }, {}, COUNT)
      await assertPlanned({ $and: [{ age: { $gte: 100 } }, { city: 'Paris' }] }, {}, 100)
    })

    it('indexes each element of an array (multikey) and still answers as a scan', async () => {
      await assertPlanned({ tags: 't3' }, {}, 'matches')
      await assertPlanned({ tags: { $in: ['t5', 't6'] } }, {}, 'matches')
      // Not intersected on a multikey index (each bound may hold through a different element).
      await assertPlanned({ tags: { $gt: 't4', $lt: 't6' } }, {}, 'matches')
      await assertPlanned({ tags: { $gt: 't5', $lt: 't1' } }, {}, 28)
    })

    it('walks an index in order for a sorted page and stops after its limit, in both directions', async () => {
      await assertPlanned({}, { sort: { age: 1 }, limit: 20 }, 20)
      await assertPlanned({}, { sort: { age: -1 }, limit: 20 }, 20)
      await assertPlanned({}, { sort: { age: 1 }, skip: 30, limit: 10 }, 10)
      await assertPlanned({ age: { $gte: 150 } }, { sort: { age: -1 }, limit: 5 }, 5)
      await assertPlanned({ name: 'n4' }, { sort: { name: 1, age: -1 }, limit: 3 }, 3)
      await assertPlanned({}, { sort: { name: -1, age: 1 }, limit: 7 }, 7)
    })

    it('scans for what no index serves: null, $or, another field, a non-simple collation', async () => {
      await assertPlanned({ age: null }, {}, COUNT)
      await assertPlanned({ $or: [{ age: 1 }, { age: 2 }] }, {}, COUNT)
      await assertPlanned({ city: 'Paris' }, {}, COUNT)
      await assertPlanned({ name: { $regex: '^n1', $options: 'i' } }, {}, COUNT)
      const collated = await counted(() => indexed.find({ name: 'n1' }, { collation: { locale: 'en', strength: 2 } } as FindOptions).toArray())
      assert.equal(collated.decoded, COUNT)
    })

    it('follows updates of indexed fields and deletes, and serves counts, deletes and updates', async () => {
      const coll = db().collection('moving')
      await coll.createIndex({ score: 1 })
      await fill(coll, 50, (i) => ({ _id: i, score: i }))
      await coll.updateMany({ score: { $lt: 10 } }, { $inc: { score: 100 } })
      assert.deepEqual(idsOf(await coll.find({ score: { $gte: 100 } }, { sort: { score: 1 } }).toArray()), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      assert.equal(await coll.countDocuments({ score: { $lt: 10 } }), 0)
      assert.equal((await coll.deleteMany({ score: { $gte: 105 } })).deletedCount, 5)
      assert.equal(await coll.countDocuments({ score: { $gte: 100 } }), 5)
      await coll.updateOne({ score: 42 }, { $set: { score: [1, 2] } })
      assert.deepEqual(idsOf(await coll.find({ score: 2 }).toArray()), [42])
      const high = await coll.aggregate([{ $match: { score: { $gte: 49 } } }, { $project: { _id: 1 } }]).toArray()
      assert.deepEqual(idsOf(high).sort((a, b) => Number(a) - Number(b)), [0, 1, 2, 3, 4, 49])
      const taken = await coll.findOneAndDelete({ score: { $gte: 10 } }, { sort: { score: -1 } })
      assert.equal(taken?.['_id'], 4)
    })

    it('orders every BSON type as a sort does, ascending and descending', async () => {
      const values: unknown[] = [
        new MinKey(),
        null,
        -Infinity,
        -2.5,
        -1,
        0,
        0.5,
        3,
        2 ** 40,
        Infinity,
        '',
        'A',
        'a',
        'a\u0000',
        'ab',
        'x'.repeat(300),
        `${'x'.repeat(200)}y`,
        '\u00e9',
        '\u{1F600}',
        {},
        { a: 1 },
        { a: 1, b: 1 },
        { b: 0 },
        { a: 'x' },
        new Binary(Buffer.from([1, 2])),
        new Binary(Buffer.from([1, 2, 3])),
        new ObjectId('000000000000000000000001'),
        new ObjectId('ff0000000000000000000000'),
        false,
        true,
        new Date(-1000),
        new Date(0),
        new Date(1e12),
        new Timestamp({ t: 1, i: 2 }),
        new Timestamp({ t: 2, i: 1 }),
        /a/,
        /b/i,
        new MaxKey(),
      ]
      const up = db().collection('mixed')
      const down = db().collection('mixed_desc')
      await up.createIndex({ v: 1 })
      await down.createIndex({ v: -1 })
      // Inserted in reverse, so that an answer in insertion (scan) order would be wrong.
      for (let i = values.length - 1; i >= 0; i--) {
        await up.insertOne({ _id: i, v: values[i] })
        await down.insertOne({ _id: i, v: values[i] })
      }
      const ascending = values.map((_, i) => i)
      const descending = [...ascending].reverse()
      // The scan's sort (bson-order.ts) agrees.
      const unindexed = db().collection('mixed_scan')
      for (let i = values.length - 1; i >= 0; i--) await unindexed.insertOne({ _id: i, v: values[i] })
      assert.deepEqual(idsOf(await unindexed.find({}, { sort: { v: 1 } }).toArray()), ascending)
      for (const coll of [up, down]) {
        assert.deepEqual(idsOf(await coll.find({}, { sort: { v: 1 } }).toArray()), ascending)
        assert.deepEqual(idsOf(await coll.find({}, { sort: { v: -1 } }).toArray()), descending)
        const page = await counted(() => coll.find({}, { sort: { v: 1 }, limit: 3 }).toArray())
        assert.equal(page.decoded, 3)
        assert.deepEqual(idsOf(await coll.find({ v: { $gte: 'a', $lt: 'b' } }).toArray()).sort(), [12, 13, 14])
        assert.deepEqual(idsOf(await coll.find({ v: /^x/ }).toArray()).sort(), [15, 16])
        assert.deepEqual(idsOf(await coll.find({ v: 'x'.repeat(300) }).toArray()), [15])
        assert.deepEqual(idsOf(await coll.find({ v: { $gt: new Date(0) } }).toArray()), [32])
      }
    })

    it('lists, refuses duplicates of, and drops indexes; a dropped index is no longer used', async () => {
      const coll = db().collection('listed')
      await coll.createIndex({ k: 1 }, { unique: true })
      await coll.createIndex({ a: 1, b: -1 })
      // A cursor of the server's index specifications, as the driver's listIndexes answers.
      assert.deepEqual(await coll.listIndexes().toArray(), [
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { k: 1 }, name: 'k_1', unique: true },
        { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
      ])
      await fill(coll, 20, (i) => ({ _id: i, k: i, a: i % 2, b: i }))
      await assert.rejects(coll.insertOne({ _id: 99, k: 3 }), { code: 11000 })
      await assert.rejects(coll.updateOne({ _id: 4 }, { $set: { k: 5 } }), { code: 11000 })
      assert.equal((await counted(() => coll.find({ a: 1, b: { $gt: 15 } }).toArray())).decoded, 2)
      assert.equal(await coll.dropIndex('a_1_b_-1'), true)
      assert.equal((await counted(() => coll.find({ a: 1, b: { $gt: 15 } }).toArray())).decoded, 20)
      await coll.createIndex({ a: 1, b: -1 })
      assert.equal((await counted(() => coll.find({ a: 1, b: { $gt: 15 } }).toArray())).decoded, 2)
    })
  })
}

describe('indexes of a directory written before index entries were stored (lmdb)', () => {
  it('builds their entries on open and uses them', async () => {
    const dir = await makeTempDir('legacy')
    try {
      const first = await openEmbedded({ path: dir })
      await fill(first.collection('old'), 30, (i) => ({ _id: i, v: i % 10 }))
      await first.close()
      // The catalog as earlier versions wrote it: definitions only, no entries, no `built` flag.
      const raw = open({ path: dir, maxDbs: 1000 })
      await raw.openDB('catalog', {}).put('indexes:old', [{ name: 'v_1', key: { v: 1 }, unique: false }])
      await raw.close()

      const db = await openEmbedded({ path: dir })
      try {
        const coll = db.collection('old')
        // The first read scans (entries are being built), and answers right.
        assert.equal((await coll.find({ v: 3 }).toArray()).length, 3)
        await coll.insertOne({ _id: 100, v: 3 })
        const after = await counted(() => coll.find({ v: 3 }).toArray())
        assert.deepEqual(idsOf(after.docs).sort((a, b) => Number(a) - Number(b)), [3, 13, 23, 100])
        assert.equal(after.decoded, 4)
      } finally {
        await db.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
