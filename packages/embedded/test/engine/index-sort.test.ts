import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { before, describe, it } from 'node:test'
import { open } from 'lmdb'
import { ObjectId } from 'mongodb'
import { seededRandom } from '../../../../test/harness/seeded-random.ts'
import { toValueKey } from '../../src/bson/value-key.ts'
import type { Document, FindOptions } from '../../src/document.ts'
import type { EmbeddedCollection } from '../../src/embedded-collection.ts'
import { ENTRY_FORMAT } from '../../src/indexes/index-catalog.ts'
import { encodeValue } from '../../src/indexes/index-keys.ts'
import { openEmbedded } from '../../src/open-embedded.ts'
import { documentsExamined } from '../../src/read/scan-documents.ts'
import { entryKeyOf } from '../../src/storage/sorted-entries.ts'
import type { StoredIndex } from '../../src/storage/storage.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

/** Runs `read` and returns its answer with the number of stored documents it examined. */
async function counted(read: () => Promise<Document[]>): Promise<{ docs: Document[], examined: number }> {
  const start = documentsExamined()
  const docs = await read()
  return { docs, examined: documentsExamined() - start }
}

async function fill(coll: EmbeddedCollection, docs: Document[]): Promise<void> {
  await Promise.all(docs.map((doc) => coll.insertOne({ ...doc })))
}

const ids = (docs: Document[]) => docs.map((doc) => toValueKey(doc['_id']))

/**
 * `_id`s whose storage keys do not sort as the `_id`s do (numbers: `n10` < `n9`; mixed types),
 * so a walk that left ties in storage-key order would answer in the wrong order.
 */
function mixedId(i: number): unknown {
  if (i % 5 === 0) return `s${(i * 7919) % 1000}`
  if (i % 5 === 1) return new ObjectId(((i * 7919) % 100_000).toString(16).padStart(24, '0'))
  if (i % 5 === 2) return (i * 7919) % 1000
  if (i % 5 === 3) return -((i * 104_729) % 997) / 4
  return new Date(1_600_000_000_000 + ((i * 7919) % 1000))
}

/** The four orders of a sort on `field` with the router's `_id` tie-break. */
const TIE_BREAK_SORTS = (field: string): Record<string, 1 | -1>[] => [
  { [field]: 1, _id: 1 },
  { [field]: -1, _id: 1 },
  { [field]: 1, _id: -1 },
  { [field]: -1, _id: -1 },
]

for (const kind of ENGINES) {
  describe(`sorted pages served by an index, ties in _id order (${kind})`, () => {
    const db = useEngine(kind)
    let indexed: EmbeddedCollection
    let scanned: EmbeddedCollection
    // 600 documents: `age` has 10 values (runs of 60, held and flipped), `flag` 2 (runs of 300,
    // past the walk's buffer: read again the other way), `status` 3.
    const docs = Array.from({ length: 600 }, (_, i) => ({ _id: mixedId(i), age: i % 10, flag: i % 2 === 0, status: ['a', 'b', 'c'][i % 3], n: i }))

    before(async () => {
      indexed = db().collection('people')
      scanned = db().collection('people_scanned')
      await indexed.createIndex({ age: 1 })
      await indexed.createIndex({ flag: -1 })
      await indexed.createIndex({ status: 1, age: 1 })
      await fill(indexed, docs)
      await fill(scanned, docs)
    })

    /** The answer of a scan and sort, examining only `examined` documents. */
    async function assertServed(filter: Document, options: FindOptions, examined: number): Promise<void> {
      const expected = await scanned.find(filter, options).toArray()
      const got = await counted(() => indexed.find(filter, options).toArray())
      const what = `find(${JSON.stringify(filter)}, ${JSON.stringify(options)})`
      assert.deepEqual(ids(got.docs), ids(expected), what)
      assert.equal(got.examined, examined, `documents examined by ${what}`)
    }

    it('serves { field: ±1, _id: ±1 } from an index on the field, stopping after skip + limit (an empty filter skips keys unread)', async () => {
      for (const sort of TIE_BREAK_SORTS('age')) {
        await assertServed({}, { sort, limit: 20 }, 20)
        await assertServed({}, { sort, skip: 35, limit: 10 }, 10)
        await assertServed({ age: { $gte: 3, $lt: 6 } }, { sort, limit: 50 }, 50)
        await assertServed({ age: { $in: [2, 7] } }, { sort, skip: 70, limit: 20 }, 90)
      }
    })

    it('walks a run of equal keys longer than the walk holds the other way, and resumes past it', async () => {
      for (const sort of TIE_BREAK_SORTS('flag')) {
        await assertServed({}, { sort, limit: 20 }, 20)
        await assertServed({}, { sort, skip: 290, limit: 20 }, 20)
        await assertServed({}, { sort }, docs.length)
      }
    })

    it('serves the sort of the field after those the filter pins: index { status, age }, filter { status }', async () => {
      for (const sort of TIE_BREAK_SORTS('age')) {
        await assertServed({ status: 'b' }, { sort, limit: 5 }, 5)
        await assertServed({ status: { $eq: 'c' } }, { sort, skip: 12, limit: 8 }, 20)
        await assertServed({ status: 'a', age: { $gt: 4 } }, { sort, limit: 5 }, 5)
      }
      // Every field pinned: the entries of that one key are in _id order.
      await assertServed({ status: 'b', age: 5 }, { sort: { _id: -1 }, limit: 5 }, 5)
      await assertServed({ status: 'b', age: 5 }, { sort: { _id: 1 }, skip: 3, limit: 5 }, 8)
      // The sort of a pinned field's own values too.
      await assertServed({ status: 'a' }, { sort: { status: -1, age: -1, _id: 1 }, limit: 5 }, 5)
    })

    it('does not claim a sort the entries do not hold: a field between the sort and _id, several pinned values', async () => {
      // { status, age } orders ties of a status by age, not _id: a scan and sort.
      await assertServed({}, { sort: { status: 1, _id: 1 }, limit: 5 }, docs.length)
      // Two statuses: no order by age across them; the index narrows to their 400 matches, sorted.
      await assertServed({ status: { $in: ['a', 'b'] } }, { sort: { age: 1, _id: 1 }, limit: 5 }, 400)
    })

    it('matches a scan and sort on random data, queries, skips and limits (both directions, ties, equality prefix)', async () => {
      const random = seededRandom(7)
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
      const values: unknown[] = [1, 2, 2.5, -3, 0, 'x', 'y', '', null, true, new Date(5), 10, 1.0]
      const coll = db().collection('random_sort')
      const plain = db().collection('random_sort_scanned')
      await coll.createIndex({ v: 1 })
      await coll.createIndex({ g: 1, v: -1 })
      const randomDocs: Document[] = []
      for (let i = 0; i < 500; i++) {
        const doc: Document = { _id: mixedId(i * 13 + 1), g: pick(['p', 'q', 'r']) }
        if (random() > 0.05) doc['v'] = pick(values)
        randomDocs.push(doc)
      }
      await fill(coll, randomDocs)
      await fill(plain, randomDocs)
      const filters: (() => Document)[] = [
        () => ({}),
        () => ({ g: pick(['p', 'q', 'r']) }),
        () => ({ g: pick(['p', 'q']), v: { $gte: pick([0, 1, 2]) } }),
        () => ({ v: { $lt: pick([1, 3, 11]) } }),
        () => ({ v: { $in: [pick(values), pick(values)] } }),
        () => ({ g: { $in: ['p', 'r'] } }),
      ]
      const sorts: Record<string, 1 | -1>[] = [...TIE_BREAK_SORTS('v'), { g: 1, v: 1, _id: -1 }, { g: -1, v: 1, _id: 1 }, { _id: 1 }, { _id: -1 }]
      let served = 0
      for (let round = 0; round < 300; round++) {
        const filter = pick(filters)()
        const options: FindOptions = { sort: pick(sorts) }
        if (random() < 0.5) options.skip = Math.floor(random() * 60)
        if (random() < 0.8) options.limit = 1 + Math.floor(random() * 40)
        const expected = await plain.find(filter, options).toArray()
        const got = await counted(() => coll.find(filter, options).toArray())
        assert.deepEqual(ids(got.docs), ids(expected), `find(${JSON.stringify(filter)}, ${JSON.stringify(options)})`)
        if (got.examined < randomDocs.length) served++
      }
      // Most of these pages are read through an index, not by a scan.
      assert.ok(served > 150, `${served} of 300 served by an index`)
    })
  })
}

describe('index entries of an earlier key format (lmdb)', () => {
  it('are rebuilt on open, then serve the sort with ties in _id order', async () => {
    const dir = await makeTempDir('entry-format')
    try {
      const first = await openEmbedded({ path: dir })
      const coll = first.collection('old')
      await coll.createIndex({ v: 1 })
      // Storage keys n10 < n2 < n9: in the earlier format, ties were in that order.
      await fill(coll, [2, 9, 10].map((_id) => ({ _id, v: 1 })))
      await first.close()
      // The directory as the earlier format left it: entries `v_1 \0 key docKey`, no `format`.
      const raw = open({ path: dir, maxDbs: 1000 })
      const catalog = raw.openDB('catalog', {})
      const definitions = catalog.get('indexes:old') as StoredIndex[]
      await catalog.put('indexes:old', definitions.map(({ format: _format, ...rest }) => rest))
      const entries = raw.openDB<string, Buffer>('x:old', { encoding: 'string', keyEncoding: 'binary' })
      await entries.clearAsync()
      for (const id of [2, 9, 10]) {
        await entries.put(Buffer.concat([Buffer.from('v_1\0'), entryKeyOf(encodeValue(1), toValueKey(id))]), toValueKey(id))
      }
      await raw.close()

      const db = await openEmbedded({ path: dir })
      try {
        const reopened = db.collection('old')
        const page = { sort: { v: 1 as const, _id: 1 as const }, limit: 2 }
        // Not used while its entries are rebuilt: the first read scans, and answers right.
        assert.deepEqual((await reopened.find({}, page).toArray()).map((doc) => doc['_id']), [2, 9])
        await reopened.insertOne({ _id: 1, v: 1 })
        const served = await counted(() => reopened.find({}, page).toArray())
        assert.deepEqual(served.docs.map((doc) => doc['_id']), [1, 2])
        assert.equal(served.examined, 2)
      } finally {
        await db.close()
      }
      const check = open({ path: dir, maxDbs: 1000 })
      assert.deepEqual((check.openDB('catalog', {}).get('indexes:old') as StoredIndex[]).map((d) => d.format), [ENTRY_FORMAT])
      await check.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
