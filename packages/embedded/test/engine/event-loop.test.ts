import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { SLICE_TICKS } from '../../src/pace/deadline.ts'
import { documentsExamined } from '../../src/read/scan-documents.ts'
import { ENGINES, useEngine } from './engines.ts'

/**
 * Long reads leave the event loop free: they run in slices and let the loop run between two
 * (pace/pause.ts). Proven without timing: a callback chain of setImmediate started just before a
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

/**
 * Whether `read` answers while `write` scans the collection for its matches. A setImmediate chain
 * watches the documents examined; on the first turn that finds the scan begun and not done, it starts
 * `read`, and notes how far the scan was when the read answered. A scan in one stretch leaves no such turn.
 */
async function answersDuringScan(write: () => Promise<unknown>, read: () => Promise<unknown>): Promise<boolean> {
  const start = documentsExamined()
  let answeredAt: number | undefined
  let reading = false
  let running = true
  const tick = () => {
    if (!running) return
    const examined = documentsExamined() - start
    if (!reading && examined > 0 && examined < SIZE) {
      reading = true
      void read().then(() => {
        answeredAt = documentsExamined() - start
      })
    }
    setImmediate(tick)
  }
  setImmediate(tick)
  try {
    await write()
  } finally {
    running = false
  }
  return answeredAt !== undefined && answeredAt < SIZE
}

/**
 * How many turns the event loop took while `run` ran, once every document of the collection was read:
 * the turns a stage computed over its whole input lets the loop take. A slice ends after at most
 * SLICE_TICKS units of work; a stage working in slices over SIZE documents takes several (those below
 * about eight), where one in a stretch leaves at most the few pauses the read and the output may make.
 */
async function turnsAfterReading(run: () => Promise<unknown>): Promise<number> {
  const start = documentsExamined()
  let turns = 0
  let running = true
  const tick = () => {
    if (!running) return
    if (documentsExamined() - start >= SIZE) turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  try {
    await run()
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

    it('an updateMany and a deleteMany finding their matches: another read answers meanwhile', async () => {
      const items = db().collection('items')
      const read = () => items.findOne({ _id: ids[0] })
      assert.ok(await answersDuringScan(() => items.updateMany({ name: 'nobody' }, { $set: { seen: true } }), read), 'the updateMany scanned in one stretch')
      assert.ok(await answersDuringScan(() => items.deleteMany({ name: 'nobody' }), read), 'the deleteMany scanned in one stretch')
    })

    it('an aggregation grouping every document: the groups are made in slices', async () => {
      let groups: unknown[] = []
      const turns = await turnsAfterReading(async () => {
        groups = await db().collection('items').aggregate([{ $group: { _id: { $mod: ['$n', 7] }, count: { $sum: 1 } } }]).toArray()
      })
      assert.equal(groups.length, 7)
      assert.ok(turns >= 6, `${turns} turns after the documents were read`)
    })

    it('an aggregation with facets over every document: the facets are run in slices', async () => {
      let facets: unknown[] = []
      const turns = await turnsAfterReading(async () => {
        facets = await db()
          .collection('items')
          .aggregate([{ $facet: { all: [{ $match: { n: { $gte: 0 } } }, { $count: 'n' }], total: [{ $group: { _id: null, sum: { $sum: '$n' } } }, { $project: { _id: 0, sum: 1 } }] } }])
          .toArray()
      })
      assert.deepEqual(facets, [{ all: [{ n: SIZE }], total: [{ sum: (SIZE * (SIZE - 1)) / 2 }] }])
      assert.ok(turns >= 6, `${turns} turns after the documents were read`)
    })
  })
}
