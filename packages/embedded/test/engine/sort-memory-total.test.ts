import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { MongoInvalidArgumentError, MongoServerError } from 'mongodb'
import { type EmbeddedDb, openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir } from './engines.ts'

/**
 * What all the sorts without an index of one engine hold together is bounded (`totalSortMemoryLimitBytes`),
 * not only what each holds: past the total, a sort within its own limit fails with 365
 * TemporarilyUnavailable (others hold the rest: retry later), and one that alone needs more than the total
 * fails with 292, as past its own limit. A sort holds its share until it is done, fails or is closed.
 */

const DOCS = 100

setFlagsFromString('--expose-gc')
/** About 330 bytes of BSON each, and about 100 more of the sort's own bookkeeping: 40 of them take some 17 kB. */
const PAD = 'x'.repeat(300)
const OWN = 20_000
const TOTAL = 30_000

const isBusy = (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 365)
  assert.equal(error.codeName, 'TemporarilyUnavailable')
  assert.match(error.message, /^Sort needs more memory than is free: the engine's sorts hold \d+ of the 30000 bytes they may hold together; retry once others are done$/)
  return true
}

for (const kind of ENGINES) {
  describe(`the total sort memory of an engine (${kind})`, () => {
    let db: EmbeddedDb
    let dir: string | undefined
    const items = () => db.collection('items')
    /** A sort of 40 documents, within its own limit (20 kB), holding more than half the total (30 kB). */
    const half = () => items().find({ n: { $lte: 40 } }, { sort: { n: 1 } })
    before(async () => {
      if (kind === 'lmdb') dir = await makeTempDir('sort-total')
      db = await openEmbedded({ ...(dir === undefined ? {} : { path: dir }), sortMemoryLimitBytes: OWN, totalSortMemoryLimitBytes: TOTAL })
      await Promise.all(Array.from({ length: DOCS }, (_, i) => items().insertOne({ _id: i, n: DOCS - i, pad: PAD })))
    })
    after(async () => {
      await db.close()
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('refuses a sort with 365 while another holds the rest, and serves it once that one is closed', async () => {
      const first = half()[Symbol.asyncIterator]()
      assert.equal((await first.next()).value?.['n'], 1)
      await assert.rejects(half().toArray(), isBusy)
      await assert.rejects(items().aggregate([{ $match: { n: { $lte: 40 } } }, { $sort: { n: -1 } }]).toArray(), isBusy)
      await first.return?.()
      assert.equal((await half().toArray()).length, 40)
    })

    it('gives the memory back when a sort is done, and when it fails', async () => {
      assert.equal((await half().toArray()).length, 40)
      await assert.rejects(items().find({}, { sort: { n: 1 } }).toArray(), { code: 292 })
      await assert.rejects(items().aggregate([{ $project: { n: 1, pad: 1 } }, { $sort: { n: 1 } }]).toArray(), { code: 292 })
      // Two sorts of 40 fit one after the other: nothing stayed held.
      assert.equal((await half().toArray()).length, 40)
      assert.equal((await half().toArray()).length, 40)
    })

    it('gives back what a cursor left unfinished and never closed held, once it is garbage', async () => {
      await (async () => {
        const abandoned = half()[Symbol.asyncIterator]()
        assert.equal((await abandoned.next()).value?.['n'], 1)
      })()
      await assert.rejects(half().toArray(), isBusy)
      const gc = runInNewContext('gc') as () => void
      for (let attempt = 0; attempt < 50; attempt++) {
        gc()
        await new Promise((resolve) => setImmediate(resolve))
        try {
          assert.equal((await half().toArray()).length, 40)
          return
        } catch (error) {
          if ((error as { code?: unknown }).code !== 365) throw error
        }
      }
      assert.fail('the abandoned sort never gave its memory back')
    })

    it('lets sorts that fit together run together', async () => {
      const small = () => items().find({ n: { $lte: 20 } }, { sort: { n: -1 } })
      const a = small()[Symbol.asyncIterator]()
      const b = small()[Symbol.asyncIterator]()
      assert.equal((await a.next()).value?.['n'], 20)
      assert.equal((await b.next()).value?.['n'], 20)
      await a.return?.()
      await b.return?.()
    })
  })
}

describe('a sort that alone needs more than the total', () => {
  it('fails with 292, the total as its limit', async () => {
    const db = await openEmbedded({ sortMemoryLimitBytes: 1_000_000, totalSortMemoryLimitBytes: 20_000 })
    try {
      const items = db.collection('items')
      await Promise.all(Array.from({ length: DOCS }, (_, i) => items.insertOne({ _id: i, n: i, pad: PAD })))
      await assert.rejects(items.find({}, { sort: { n: 1 } }).toArray(), (error: unknown) => {
        assert.ok(error instanceof MongoServerError)
        assert.equal(error.code, 292)
        assert.equal(error.message, 'Sort exceeded memory limit of 20000 bytes, but did not opt in to external sorting.')
        return true
      })
    } finally {
      await db.close()
    }
  })
})

describe('the totalSortMemoryLimitBytes option', () => {
  for (const value of [0, -1, 1.5, Number.NaN, '1000', null]) {
    it(`refuses ${String(value)} (${typeof value})`, async () => {
      await assert.rejects(openEmbedded({ totalSortMemoryLimitBytes: value as number }), (error: unknown) => {
        assert.ok(error instanceof MongoInvalidArgumentError)
        assert.match(error.message, /^totalSortMemoryLimitBytes must be a positive integer \(bytes\) or Infinity, got /)
        return true
      })
    })
  }
})
