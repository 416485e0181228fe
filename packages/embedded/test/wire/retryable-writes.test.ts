import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { Binary, type Document, Long } from 'mongodb'
import { openEmbedded } from '../../src/index.ts'
import { runRetryableWrite } from '../../src/wire/retryable-writes.ts'
import { RawClient, useWireServer } from './wire-harness.ts'

interface Counter {
  _id: number
  n: number
}

/**
 * Retryable writes under `replSet`: a write the driver sends with its session's `lsid` and a
 * `txnNumber` (outside a transaction) runs once; a retry of it, after a network error or a
 * retryable error, is answered with the first run's reply and applies nothing again.
 */
describe('retryable writes through the official driver', () => {
  const wire = useWireServer({ replSet: 'rs0' }, { replicaSet: 'rs0' })
  const admin = () => wire().client.db('admin')
  const counters = () => wire().client.db('test').collection<Counter>('counters')

  afterEach(() => admin().command({ configureFailPoint: 'failCommand', mode: 'off' }))

  it('retries a write whose connection closed before it ran: it is applied once', async () => {
    await admin().command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['insert'], closeConnection: true } })
    await counters().insertOne({ _id: 1, n: 0 })
    assert.deepEqual(await counters().find({ _id: 1 }).toArray(), [{ _id: 1, n: 0 }])
  })

  it('answers the retry of a write that ran (its reply lost to a RetryableWriteError) without running it again', async () => {
    await counters().insertOne({ _id: 2, n: 0 })
    // The write runs, then its reply carries a write concern error the driver retries on.
    const data = { failCommands: ['update'], writeConcernError: { code: 91, errmsg: 'Replication is being shut down' }, errorLabels: ['RetryableWriteError'] }
    await admin().command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data })
    const result = await counters().updateOne({ _id: 2 }, { $inc: { n: 1 } })
    assert.equal(result.modifiedCount, 1)
    assert.deepEqual(await counters().findOne({ _id: 2 }), { _id: 2, n: 1 })
  })

  it('labels a retryable write error RetryableWriteError itself (mongod does; the driver retries on the label)', async () => {
    await counters().insertOne({ _id: 3, n: 0 })
    await admin().command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['findAndModify'], writeConcernError: { code: 91, errmsg: 'Replication is being shut down' } } })
    const before = await counters().findOneAndUpdate({ _id: 3 }, { $inc: { n: 1 } })
    assert.deepEqual(before, { _id: 3, n: 0 })
    assert.deepEqual(await counters().findOne({ _id: 3 }), { _id: 3, n: 1 })
  })
})

describe('retryable writes on the wire', () => {
  const wire = useWireServer({ replSet: 'rs0' })
  const lsid = (byte: number) => ({ id: new Binary(Buffer.alloc(16, byte), 4) })
  const insert = (session: Document, txnNumber: number, _id: number) => ({ insert: 'raw', documents: [{ _id }], lsid: session, txnNumber: Long.fromNumber(txnNumber) })

  it('answers a repeated (lsid, txnNumber) with the first reply, and a new number runs again', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const session = lsid(1)
      const first = await raw.command(insert(session, 1, 1))
      assert.equal(first['n'], 1)
      const retry = await raw.command(insert(session, 1, 1))
      assert.equal(retry['n'], 1)
      assert.equal(retry['writeErrors'], undefined)
      const next = await raw.command(insert(session, 2, 1))
      assert.equal((next['writeErrors'] as Document[])[0]!['code'], 11000)
      assert.equal(await wire().client.db('test').collection('raw').countDocuments({}), 1)
    } finally {
      raw.close()
    }
  })

  it('refuses an older number than the session has run (TransactionTooOld, 225) and a read with a number (50768)', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const session = lsid(2)
      assert.equal((await raw.command(insert(session, 5, 10)))['n'], 1)
      const old = await raw.command(insert(session, 4, 11))
      assert.deepEqual([old['ok'], old['code'], old['codeName']], [0, 225, 'TransactionTooOld'])
      const read = await raw.command({ find: 'raw', lsid: session, txnNumber: Long.fromNumber(6) })
      assert.deepEqual([read['code'], read['codeName']], [50768, 'NotARetryableWriteCommand'])
    } finally {
      raw.close()
    }
  })

  it('forgets an ended session (endSessions): a retry of its writes would run again', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const session = lsid(3)
      assert.equal((await raw.command(insert(session, 1, 20)))['n'], 1)
      await raw.command({ endSessions: [session] })
      const again = await raw.command(insert(session, 1, 20))
      assert.equal((again['writeErrors'] as Document[])[0]!['code'], 11000)
    } finally {
      raw.close()
    }
  })

  it('does not remember a write that failed as a whole: its retry runs', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const session = lsid(4)
      const failed = await raw.command({ insert: 'raw', documents: 'not an array', lsid: session, txnNumber: Long.fromNumber(1) })
      assert.equal(failed['ok'], 0)
      assert.equal((await raw.command(insert(session, 1, 30)))['n'], 1)
    } finally {
      raw.close()
    }
  })
})

describe('the record of retryable writes', () => {
  it('keeps the last write of 10,000 sessions: past them the least recently used is forgotten, and its retry runs again', async () => {
    const engine = await openEmbedded()
    try {
      let runs = 0
      const run = async () => {
        runs++
        return { n: 1, ok: 1 }
      }
      for (let session = 0; session <= 10_000; session++) await runRetryableWrite(engine, 'insert', `s${session}`, 1, run)
      assert.equal(runs, 10_001)
      await runRetryableWrite(engine, 'insert', 's10000', 1, run)
      assert.equal(runs, 10_001, 'the latest session is remembered: its retry does not run')
      await runRetryableWrite(engine, 'insert', 's0', 1, run)
      assert.equal(runs, 10_002, 'the oldest was forgotten: its retry runs')
    } finally {
      await engine.close()
    }
  })

  it('keeps at most 64 MB of replies, forgetting the least recently used sessions past them', async () => {
    const engine = await openEmbedded()
    try {
      let runs = 0
      // A findAndModify's reply holds its document: five of 15 MB are past 64 MB.
      const big = 'x'.repeat(15 * 1024 * 1024)
      const run = async () => {
        runs++
        return { value: { big }, ok: 1 }
      }
      for (let session = 0; session < 5; session++) await runRetryableWrite(engine, 'findAndModify', `b${session}`, 1, run)
      await runRetryableWrite(engine, 'findAndModify', 'b4', 1, run)
      assert.equal(runs, 5)
      await runRetryableWrite(engine, 'findAndModify', 'b0', 1, run)
      assert.equal(runs, 6)
    } finally {
      await engine.close()
    }
  })
})
