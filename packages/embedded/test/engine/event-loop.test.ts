import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { SLICE_TICKS } from '../../src/read/deadline.ts'
import { ENGINES, useEngine } from './engines.ts'

/**
 * Long reads leave the event loop free: they run in slices and let the loop run between two
 * (read/pause.ts). Proven without timing: a callback chain of setImmediate started just before a
 * read counts the loop's turns until the read resolves. A read that held the loop from start to end
 * would resolve before the first of them; a slice ends after at most SLICE_TICKS documents whatever
 * the machine's speed, so each read below, which works on several times that many, lets the loop
 * run at least once.
 */

const SIZE = 4 * SLICE_TICKS

/** How many turns the event loop took while `read` ran. */
async function turnsDuring(read: () => Promise<unknown>): Promise<number> {
  let turns = 0
  let running = true
  const tick = () => {
    if (!running) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  try {
    await read()
  } finally {
    running = false
  }
  return turns
}

for (const kind of ENGINES) {
  describe(`long reads let the event loop run (${kind})`, () => {
    const db = useEngine(kind)
    const ids: ObjectId[] = []
    before(async () => {
      const items = db().collection('items')
      for (let start = 0; start < SIZE; start += 2000) {
        await Promise.all(
          Array.from({ length: Math.min(2000, SIZE - start) }, (_, i) => {
            const _id = new ObjectId()
            ids.push(_id)
            return items.insertOne({ _id, name: `item ${(start + i) * 7919 % SIZE}`, n: start + i, pad: 'x'.repeat(40) })
          }),
        )
      }
    })

    it('a sort without an index, of every document', async () => {
      let found: unknown[] = []
      const turns = await turnsDuring(async () => {
        found = await db().collection('items').find({}, { sort: { name: 1, _id: 1 } }).toArray()
      })
      assert.equal(found.length, SIZE)
      assert.ok(turns > 0, 'the sort held the event loop from start to end')
    })

    it('a sort without an index, of a filtered page (top-k)', async () => {
      const turns = await turnsDuring(() => db().collection('items').find({ n: { $gte: 0 } }, { sort: { name: -1 }, limit: 10 }).toArray())
      assert.ok(turns > 0)
    })

    it('a filtered scan that matches nothing', async () => {
      let found: unknown[] = ['not read']
      const turns = await turnsDuring(async () => {
        found = await db().collection('items').find({ name: 'nobody' }).toArray()
      })
      assert.deepEqual(found, [])
      assert.ok(turns > 0)
    })

    it('a read of many ids ($in)', async () => {
      let found: unknown[] = []
      const turns = await turnsDuring(async () => {
        found = await db().collection('items').find({ _id: { $in: ids } }).toArray()
      })
      assert.equal(found.length, SIZE)
      assert.ok(turns > 0)
    })

    it('an aggregation: a leading $sort, and a $sort after other stages', async () => {
      const items = db().collection('items')
      assert.ok((await turnsDuring(() => items.aggregate([{ $sort: { name: 1 } }]).toArray())) > 0)
      assert.ok((await turnsDuring(() => items.aggregate([{ $project: { name: 1 } }, { $sort: { name: 1 } }, { $limit: 5 }]).toArray())) > 0)
    })

    it('a count over every document', async () => {
      assert.ok((await turnsDuring(() => db().collection('items').countDocuments({ pad: { $exists: true } }))) > 0)
    })
  })
}
