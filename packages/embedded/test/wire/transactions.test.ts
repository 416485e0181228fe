import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Binary, Long, MongoServerError } from 'mongodb'
import { RawClient, useWireServer } from './wire-harness.ts'

/** Documents with ids of any type (the driver's default types `_id` as an ObjectId). */
interface AnyDoc {
  _id?: number
  [field: string]: unknown
}

describe('transactions through the official driver', () => {
  const wire = useWireServer()
  const coll = (name: string) => wire().client.db('test').collection<AnyDoc>(name)

  it('withTransaction commits the writes of several collections at once', async () => {
    await coll('orders').insertOne({ _id: 1, stock: 3 })
    const session = wire().client.startSession()
    try {
      await session.withTransaction(async () => {
        await coll('orders').updateOne({ _id: 1 }, { $set: { stock: 2 } }, { session })
        await coll('lines').insertOne({ _id: 1, order: 1 }, { session })
        // Inside, its own writes; outside, none of them yet.
        assert.equal((await coll('lines').findOne({ _id: 1 }, { session }))?.['order'], 1)
        assert.equal(await coll('lines').findOne({ _id: 1 }), null)
      })
    } finally {
      await session.endSession()
    }
    assert.equal((await coll('orders').findOne({ _id: 1 }))?.['stock'], 2)
    assert.equal(await coll('lines').countDocuments({}), 1)
  })

  it('a write conflict (112, TransientTransactionError) makes the driver run the transaction again: no change is lost', async () => {
    const counters = wire().client.db('test').collection<{ _id: number, n: number, log: string[] }>('counters')
    await counters.insertOne({ _id: 1, n: 0, log: [] })
    const session = wire().client.startSession()
    let attempts = 0
    try {
      await session.withTransaction(async () => {
        attempts++
        const read = await counters.findOne({ _id: 1 }, { session })
        // Another client's write, committed between the transaction's read and its write.
        if (attempts === 1) await counters.updateOne({ _id: 1 }, { $inc: { n: 10 }, $push: { log: 'outside' } })
        await counters.updateOne({ _id: 1 }, { $set: { n: Number(read?.n) + 1 }, $push: { log: 'inside' } }, { session })
      })
    } finally {
      await session.endSession()
    }
    assert.equal(attempts, 2)
    assert.deepEqual(await counters.findOne({ _id: 1 }), { _id: 1, n: 11, log: ['outside', 'inside'] })
  })

  it('abortTransaction, and a failed command, leave nothing of the transaction', async () => {
    await coll('kept').insertOne({ _id: 1 })
    const session = wire().client.startSession()
    try {
      session.startTransaction()
      await coll('kept').insertOne({ _id: 2 }, { session })
      await session.abortTransaction()
      await assert.rejects(
        session.withTransaction(async () => {
          await coll('kept').insertOne({ _id: 3 }, { session })
          await coll('kept').insertOne({ _id: 1 }, { session })
        }),
        (error: unknown) => error instanceof MongoServerError && error.code === 11000
      )
    } finally {
      await session.endSession()
    }
    assert.deepEqual(await coll('kept').find({}).toArray(), [{ _id: 1 }])
  })

  it('answers NoSuchTransaction (251, TransientTransactionError) for a transaction it does not know, and commits a committed one again', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) }
      const unknown = await raw.command({ find: 'kept', lsid, txnNumber: Long.fromNumber(5), autocommit: false })
      assert.equal(unknown['code'], 251)
      assert.deepEqual(unknown['errorLabels'], ['TransientTransactionError'])
      const started = await raw.command({ insert: 'raw', documents: [{ _id: 1 }], lsid, txnNumber: Long.fromNumber(6), autocommit: false, startTransaction: true })
      assert.equal(started['ok'], 1)
      const commit = { commitTransaction: 1, lsid, txnNumber: Long.fromNumber(6), autocommit: false }
      assert.equal((await raw.command(commit))['ok'], 1)
      assert.equal((await raw.command(commit))['ok'], 1)
      assert.equal((await raw.command({ abortTransaction: 1, lsid, txnNumber: Long.fromNumber(6), autocommit: false }))['code'], 251)
      assert.equal(await coll('raw').countDocuments({}), 1)
    } finally {
      raw.close()
    }
  })

  it('a command that fails inside a transaction aborts it, as on the server', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const lsid = { id: new Binary(Buffer.alloc(16, 8), 4) }
      const txn = { lsid, txnNumber: Long.fromNumber(1), autocommit: false }
      assert.equal((await raw.command({ insert: 'aborted', documents: [{ _id: 1 }], ...txn, startTransaction: true }))['ok'], 1)
      const failed = await raw.command({ find: 'aborted', filter: { $bogus: 1 }, ...txn })
      assert.equal(failed['ok'], 0)
      assert.equal((await raw.command({ commitTransaction: 1, ...txn }))['code'], 251)
      assert.equal(await coll('aborted').countDocuments({}), 0)
    } finally {
      raw.close()
    }
  })
})
