import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { documentsDecoded } from '../../src/bson/bson-codec.ts'
import { ENGINES, useEngine } from './engines.ts'

/** lmdb inserts each await an fsync, so its collection is smaller; the property is the same. */
const SIZE = { memory: 100_000, lmdb: 3_000 } as const

for (const kind of ENGINES) {
  describe(`lazy scans (${kind})`, () => {
    const db = useEngine(kind)
    const size = SIZE[kind]
    before(async () => {
      const coll = db().collection('large')
      await Promise.all(Array.from({ length: size }, (_, i) => coll.insertOne({ _id: i, even: i % 2 === 0, pad: 'x'.repeat(100) })))
    })

    it('decodes only what an unsorted cursor consumes when the caller stops early', async () => {
      const start = documentsDecoded()
      const seen: unknown[] = []
      for await (const doc of db().collection('large').find({ even: true })) {
        seen.push(doc['_id'])
        if (seen.length === 3) break
      }
      const decoded = documentsDecoded() - start
      assert.equal(seen.length, 3)
      assert.ok(decoded <= 6, `decoded ${decoded} documents to return 3`)
    })

    it('decodes nothing before the first read, and stops at the limit', async () => {
      const start = documentsDecoded()
      const cursor = db().collection('large').find({}, { limit: 5 })
      assert.equal(documentsDecoded() - start, 0)
      assert.equal((await cursor.toArray()).length, 5)
      assert.equal(documentsDecoded() - start, 5)
    })

    it('stops decoding once a cursor is closed', async () => {
      const cursor = db().collection('large').find({})
      const iterator = cursor[Symbol.asyncIterator]()
      await iterator.next()
      await cursor.close()
      const start = documentsDecoded()
      assert.equal((await iterator.next()).done, true)
      assert.equal(documentsDecoded() - start, 0)
    })

    it('still streams every document of a full scan', async () => {
      let count = 0
      for await (const _ of db().collection('large').find({})) count++
      assert.equal(count, size)
    })
  })
}
