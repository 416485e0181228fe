import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { MongoInvalidArgumentError, MongoServerError } from 'mongodb'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir } from './engines.ts'

/** A sort without an index holds the BSON of what it keeps within `sortMemoryLimitBytes`, or fails with code 292. */

const LIMIT = 20_000
const DOCS = 100
/** About 330 bytes of BSON each: 100 of them (33 kB) do not fit in 20 kB, 20 of them do. */
const PAD = 'x'.repeat(300)

const isSortMemoryError = (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 292)
  assert.equal(error.codeName, 'QueryExceededMemoryLimitNoDiskUseAllowed')
  assert.equal(error.message, `Sort exceeded memory limit of ${LIMIT} bytes, but did not opt in to external sorting.`)
  return true
}

for (const kind of ENGINES) {
  describe(`the sort memory limit (${kind})`, () => {
    let db: EmbeddedDb
    let dir: string | undefined
    before(async () => {
      if (kind === 'lmdb') dir = await makeTempDir('sort-memory')
      db = await openEmbedded({ ...(dir === undefined ? {} : { path: dir }), sortMemoryLimitBytes: LIMIT })
      const items = db.collection('items')
      await Promise.all(Array.from({ length: DOCS }, (_, i) => items.insertOne({ _id: i, n: DOCS - i, pad: PAD })))
    })
    after(async () => {
      await db.close()
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('refuses an unbounded sort past the limit with code 292', async () => {
      await assert.rejects(db.collection('items').find({}, { sort: { n: 1 } }).toArray(), isSortMemoryError)
      await assert.rejects(db.collection('items').find({ n: { $gt: 30 } }, { sort: { n: -1 } }).toArray(), isSortMemoryError)
    })

    it('refuses a page whose skip + limit needs more than the limit', async () => {
      await assert.rejects(db.collection('items').find({}, { sort: { n: 1 }, skip: 40, limit: 40 }).toArray(), isSortMemoryError)
    })

    it('sorts a page with a limit: only the top skip + limit is held', async () => {
      const page = await db.collection('items').find({}, { sort: { n: 1 }, limit: 10 }).toArray()
      assert.deepEqual(page.map((doc) => doc['n']), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })

    it('sorts every match when they fit', async () => {
      const found = await db.collection('items').find({ n: { $lte: 20 } }, { sort: { n: -1 } }).toArray()
      assert.equal(found.length, 20)
      assert.equal(found[0]!['n'], 20)
    })

    it('streams an unbounded list without a sort, whatever its size', async () => {
      assert.equal((await db.collection('items').find({}).toArray()).length, DOCS)
    })

    it('refuses an aggregate $sort past the limit with code 292', async () => {
      await assert.rejects(db.collection('items').aggregate([{ $sort: { n: 1 } }]).toArray(), isSortMemoryError)
      await assert.rejects(db.collection('items').aggregate([{ $match: { n: { $gt: 30 } } }, { $sort: { n: -1 } }]).toArray(), isSortMemoryError)
      await assert.rejects(db.collection('items').aggregate([{ $project: { n: 1, pad: 1 } }, { $sort: { n: 1 } }, { $limit: 40 }]).toArray(), isSortMemoryError)
    })

    it('runs an aggregate $sort followed by a $limit: only the top is held', async () => {
      const page = await db.collection('items').aggregate([{ $sort: { n: 1 } }, { $limit: 10 }]).toArray()
      assert.deepEqual(page.map((doc) => doc['n']), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      const small = await db.collection('items').aggregate([{ $project: { n: 1 } }, { $sort: { n: -1 } }]).toArray()
      assert.equal(small.length, DOCS)
      assert.equal(small[0]!['n'], DOCS)
    })

    it('keeps the limit under allowDiskUse: true (no external sort), saying so', async () => {
      await assert.rejects(db.collection('items').aggregate([{ $sort: { n: 1 } }], { allowDiskUse: true }).toArray(), (error: unknown) => {
        assert.ok(error instanceof MongoServerError, String(error))
        assert.equal(error.code, 292)
        assert.equal(error.codeName, 'QueryExceededMemoryLimitNoDiskUseAllowed')
        assert.equal(error.message, `Sort exceeded memory limit of ${LIMIT} bytes; the embedded engine has no external sort, so allowDiskUse does not lift the limit.`)
        return true
      })
    })
  })
}

describe('the sortMemoryLimitBytes option', () => {
  for (const value of [0, -1, 1.5, Number.NaN, '1000', null]) {
    it(`refuses ${String(value)} (${typeof value})`, async () => {
      await assert.rejects(openEmbedded({ sortMemoryLimitBytes: value as number }), (error: unknown) => {
        assert.ok(error instanceof MongoInvalidArgumentError)
        assert.match(error.message, /^sortMemoryLimitBytes must be a positive integer \(bytes\) or Infinity, got /)
        return true
      })
    })
  }

  it('accepts Infinity: no limit', async () => {
    const db = await openEmbedded({ sortMemoryLimitBytes: Number.POSITIVE_INFINITY })
    try {
      const items = db.collection('items')
      await Promise.all(Array.from({ length: 50 }, (_, i) => items.insertOne({ _id: i, pad: PAD })))
      assert.equal((await items.find({}, { sort: { _id: -1 } }).toArray()).length, 50)
    } finally {
      await db.close()
    }
  })
})
