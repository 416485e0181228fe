import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it, mock } from 'node:test'
import { openEmbedded } from '../../src/open-embedded.ts'
import { ENGINES, makeTempDir, useEngine } from './engines.ts'

/** Whether `promise` has settled, after letting every pending callback run (no timer: the answer is the same whatever the load). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  promise.then(() => { done = true }, () => { done = true })
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
  return done
}

for (const kind of ENGINES) {
  describe(`transactions (${kind})`, () => {
    const db = useEngine(kind)

    it('commits the writes of several collections at once; readers outside see none of them before', async () => {
      const accounts = db().collection('tx_accounts')
      const log = db().collection('tx_log')
      await accounts.insertOne({ _id: 'a', balance: 10 })
      const session = db().client.startSession()
      session.startTransaction()
      await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -5 } }, { session })
      await log.insertOne({ _id: 1, moved: 5 }, { session })
      // Inside: its own writes; outside: the data before it.
      assert.equal((await accounts.findOne({ _id: 'a' }, { session }))?.['balance'], 5)
      assert.equal((await accounts.findOne({ _id: 'a' }))?.['balance'], 10)
      assert.equal(await log.countDocuments({}), 0)
      assert.equal(await log.countDocuments({}, { session }), 1)
      await session.commitTransaction()
      assert.equal((await accounts.findOne({ _id: 'a' }))?.['balance'], 5)
      assert.deepEqual(await log.find({}).toArray(), [{ _id: 1, moved: 5 }])
      await session.endSession()
    })

    it('an aborted transaction leaves nothing, and withTransaction aborts when its function throws', async () => {
      const coll = db().collection('tx_abort')
      await coll.insertOne({ _id: 1, v: 'before' })
      const session = db().client.startSession()
      await assert.rejects(
        session.withTransaction(async () => {
          await coll.updateOne({ _id: 1 }, { $set: { v: 'inside' } }, { session })
          await coll.insertOne({ _id: 2 }, { session })
          await coll.deleteOne({ _id: 1 }, { session })
          throw new Error('refused')
        }),
        /refused/
      )
      assert.deepEqual(await coll.find({}).toArray(), [{ _id: 1, v: 'before' }])
      assert.equal(session.inTransaction(), false)
      await session.endSession()
    })

    it('sees its own inserts through indexes, and refuses a duplicate of them under a unique index', async () => {
      const coll = db().collection('tx_unique')
      await coll.createIndex({ slug: 1 }, { unique: true })
      await coll.insertOne({ _id: 1, slug: 'one' })
      const session = db().client.startSession()
      session.startTransaction()
      await coll.insertOne({ _id: 2, slug: 'two' }, { session })
      assert.equal((await coll.findOne({ slug: 'two' }, { session }))?.['_id'], 2)
      assert.equal(await coll.findOne({ slug: 'two' }), null)
      await assert.rejects(coll.insertOne({ _id: 3, slug: 'two' }, { session }), { code: 11000 })
      await assert.rejects(coll.insertOne({ _id: 4, slug: 'one' }, { session }), { code: 11000 })
      // A slug the transaction frees is free inside it.
      await coll.deleteOne({ _id: 1 }, { session })
      await coll.insertOne({ _id: 5, slug: 'one' }, { session })
      await session.commitTransaction()
      assert.deepEqual(await coll.find({}, { sort: { _id: 1 } }).toArray(), [{ _id: 2, slug: 'two' }, { _id: 5, slug: 'one' }])
      assert.equal((await coll.findOne({ slug: 'one' }))?.['_id'], 5)
      await session.endSession()
    })

    it('holds a collection it wrote: another writer waits for the commit, and applies after it', async () => {
      const coll = db().collection('tx_hold')
      await coll.insertOne({ _id: 1, n: 0 })
      const session = db().client.startSession()
      session.startTransaction()
      await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session })
      const outside = coll.updateOne({ _id: 1 }, { $inc: { n: 10 } })
      assert.equal(await settled(outside), false, 'a writer outside the transaction went through it')
      // Readers never wait.
      assert.equal((await coll.findOne({ _id: 1 }))?.['n'], 0)
      await session.commitTransaction()
      await outside
      assert.equal((await coll.findOne({ _id: 1 }))?.['n'], 11)
      await session.endSession()
    })

    it('runs one transaction at a time: a second waits for the first to end, then conflicts on what the first changed after its snapshot', async () => {
      const coll = db().collection('tx_serial')
      await coll.insertOne({ _id: 1, n: 0 })
      await coll.insertOne({ _id: 2, n: 0 })
      const first = db().client.startSession()
      const second = db().client.startSession()
      first.startTransaction()
      second.startTransaction()
      await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: first })
      const waiting = coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: second })
      assert.equal(await settled(waiting), false)
      await first.commitTransaction()
      await assert.rejects(waiting, { code: 112, codeName: 'WriteConflict', errorLabels: ['TransientTransactionError'] })
      assert.equal(second.inTransaction(), false, 'a write conflict aborts the transaction')
      // A third, started after the first committed, sees its write and changes what it likes.
      const third = db().client.startSession()
      await third.withTransaction(async () => {
        await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: third })
        await coll.updateOne({ _id: 2 }, { $inc: { n: 1 } }, { session: third })
      })
      assert.deepEqual(await coll.find({}, { sort: { _id: 1 } }).toArray(), [{ _id: 1, n: 2 }, { _id: 2, n: 1 }])
    })

    it('a write to a document another write changed after the snapshot is a WriteConflict, and nothing of the transaction is stored', async () => {
      const coll = db().collection('tx_conflict')
      await coll.insertOne({ _id: 1, v: 'before' })
      await coll.insertOne({ _id: 2, v: 'before' })
      const session = db().client.startSession()
      session.startTransaction()
      // The snapshot: the transaction's first operation.
      assert.equal((await coll.findOne({ _id: 1 }, { session }))?.['v'], 'before')
      await coll.updateOne({ _id: 1 }, { $set: { v: 'outside' } })
      await coll.updateOne({ _id: 2 }, { $set: { v: 'mine' } }, { session })
      await assert.rejects(coll.updateOne({ _id: 1 }, { $set: { v: 'inside' } }, { session }), { code: 112, errorLabels: ['TransientTransactionError'] })
      await assert.rejects(session.commitTransaction(), /abortTransaction/)
      assert.deepEqual(await coll.find({}, { sort: { _id: 1 } }).toArray(), [{ _id: 1, v: 'outside' }, { _id: 2, v: 'before' }])
      await session.endSession()
    })

    it('a write outside the transaction that lands between its read and its write is never lost: withTransaction runs it again', async () => {
      const coll = db().collection('tx_retry')
      await coll.insertOne({ _id: 1, n: 0, log: [] })
      const session = db().client.startSession()
      let attempts = 0
      await session.withTransaction(async () => {
        attempts++
        const read = await coll.findOne({ _id: 1 }, { session })
        // Another client's write, committed between this transaction's read and its write.
        if (attempts === 1) await coll.updateOne({ _id: 1 }, { $inc: { n: 10 }, $push: { log: 'outside' } })
        await coll.updateOne({ _id: 1 }, { $set: { n: Number(read?.['n']) + 1 }, $push: { log: 'inside' } }, { session })
      })
      assert.equal(attempts, 2)
      assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1, n: 11, log: ['outside', 'inside'] })
      await session.endSession()
    })

    it('a conditional write taking the queue just after another write was applied reads that write, not the version before', async () => {
      const coll = db().collection('tx_applied')
      // Rounds: on disk, each outside write is applied (the queue moves on) before its commit is durable.
      for (let round = 0; round < 20; round++) {
        await coll.insertOne({ _id: round, v: 'before' })
        const outside = coll.updateOne({ _id: round }, { $set: { v: 'outside' } })
        // A turn of the event loop: the outside write's body has run (the queue let it go), its commit may still be on its way.
        await new Promise((resolve) => setImmediate(resolve))
        const session = db().client.startSession()
        let matched: number | undefined
        await session.withTransaction(async () => {
          matched = (await coll.updateOne({ _id: round, v: 'before' }, { $set: { v: 'inside' } }, { session })).matchedCount
        })
        await outside
        await session.endSession()
        const now = (await coll.findOne({ _id: round }))?.['v']
        // Either order ends with the outside write last: the transaction came first (matched 1, then overwritten),
        // or saw it (matched 0). Only a transaction that matched the version before and overwrote it loses it.
        assert.equal(now, 'outside', `round ${round}: the transaction matched ${matched} and overwrote the outside write`)
      }
    })

    it("creates a collection and its indexes, new to it, at its commit; refuses an existing collection's (263), and answers 251 once it ended", async () => {
      await db().collection('tx_ddl').insertOne({ _id: 1 })
      const session = db().client.startSession()
      session.startTransaction()
      const transaction = session.transaction!
      await assert.rejects(transaction.db('embedded').collection('tx_ddl').createIndex({ b: 1 }), { code: 263 })
      await session.abortTransaction()
      assert.throws(() => transaction.db('embedded'), { code: 251, errorLabels: ['TransientTransactionError'] })
      session.startTransaction()
      const inside = session.transaction!.db('embedded')
      await inside.createCollection('tx_new')
      await inside.collection('tx_new').createIndex({ b: 1 }, { unique: true })
      await inside.collection('tx_new').insertOne({ _id: 1, b: 1 })
      await assert.rejects(inside.collection('tx_new').insertOne({ _id: 2, b: 1 }), { code: 11000 })
      assert.equal(db().listCollectionNames().includes('tx_new'), false)
      await session.commitTransaction()
      await session.endSession()
      assert.equal(db().listCollectionNames().includes('tx_new'), true)
      assert.deepEqual((await db().collection('tx_new').listIndexes().toArray()).map((index) => index['name']), ['_id_', 'b_1'])
      await assert.rejects(db().collection('tx_new').insertOne({ _id: 3, b: 1 }), { code: 11000 })
    })
  })
}

describe('transactions left open', () => {
  const db = useEngine('memory')

  it('endSession aborts an open transaction, and frees what it held', async () => {
    const coll = db().collection('tx_end')
    const session = db().client.startSession()
    session.startTransaction()
    await coll.insertOne({ _id: 1 }, { session })
    await session.endSession()
    await coll.insertOne({ _id: 2 })
    assert.deepEqual(await coll.find({}).toArray(), [{ _id: 2 }])
  })

  it('one open past its lifetime (60 s) is aborted', async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const coll = db().collection('tx_expired')
      const session = db().client.startSession()
      session.startTransaction()
      await coll.insertOne({ _id: 1 }, { session })
      mock.timers.tick(59_999)
      assert.equal(session.inTransaction(), true)
      mock.timers.tick(1)
      await coll.insertOne({ _id: 2 })
      assert.equal(session.inTransaction(), false)
      assert.deepEqual(await coll.find({}).toArray(), [{ _id: 2 }])
    } finally {
      mock.timers.reset()
    }
  })

  it('closing the engine aborts an open transaction: nothing of it is stored', async () => {
    const dir = await makeTempDir('tx-close')
    try {
      const engine = await openEmbedded({ path: dir })
      const session = engine.client.startSession()
      session.startTransaction()
      await engine.collection('kept').insertOne({ _id: 1 }, { session })
      await engine.close()
      const again = await openEmbedded({ path: dir })
      assert.equal(await again.collection('kept').countDocuments({}), 0)
      await again.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
