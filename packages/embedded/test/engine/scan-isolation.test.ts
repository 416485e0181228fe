import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ENGINES, useEngine } from './engines.ts'

/** More than one storage batch (256 documents), so the walk crosses batch boundaries. */
const SIZE = 700

for (const kind of ENGINES) {
  describe(`what a long scan sees of concurrent writes (${kind})`, () => {
    const db = useEngine(kind)
    before(async () => {
      const coll = db().collection('walk')
      await Promise.all(Array.from({ length: SIZE }, (_, i) => coll.insertOne({ _id: i })))
    })

    it('skips a document deleted before the scan reaches it and returns each document at most once', async () => {
      const coll = db().collection('walk')
      const cursor = coll.find({})[Symbol.asyncIterator]()
      const seen: number[] = []
      for (let i = 0; i < 300; i++) {
        const step = await cursor.next()
        assert.ok(!step.done)
        seen.push(step.value['_id'] as number)
      }
      const ahead = Array.from({ length: SIZE }, (_, i) => i).filter((id) => !seen.includes(id))
      const deleted = ahead[ahead.length - 1]
      assert.equal((await coll.deleteOne({ _id: deleted })).deletedCount, 1)
      await coll.insertOne({ _id: SIZE + 1 })
      for (let step = await cursor.next(); !step.done; step = await cursor.next()) seen.push(step.value['_id'] as number)
      assert.ok(!seen.includes(deleted as number), `document ${deleted} was deleted before the scan reached it`)
      assert.equal(new Set(seen).size, seen.length, 'a document came back twice')
      // Every document that was there throughout is returned; the one inserted meanwhile may or may not be.
      assert.equal(seen.filter((id) => id < SIZE).length, SIZE - 1)
    })
  })
}
