import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Long } from 'mongodb'
import { RawClient, useWireServer } from './wire-harness.ts'

describe('cursors over the wire', () => {
  const wire = useWireServer()

  it('serves a first batch of 101 by default, then the rest through getMore, with 64-bit ids', async () => {
    await wire().client.db('test').collection<{ _id: number }>('many').insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i })))
    const raw = await RawClient.open(wire().server)
    try {
      const first = await raw.command({ find: 'many', sort: { _id: 1 } })
      const cursor = first['cursor'] as { firstBatch: unknown[], id: unknown, ns: string }
      assert.equal(cursor.firstBatch.length, 101)
      assert.equal(cursor.ns, 'test.many')
      assert.ok(Long.isLong(cursor.id) && !cursor.id.isZero())
      const more = await raw.command({ getMore: cursor.id, collection: 'many', batchSize: 100 })
      const next = more['cursor'] as { nextBatch: { _id: number }[], id: Long }
      assert.equal(next.nextBatch.length, 100)
      assert.equal(next.nextBatch[0]?._id, 101)
      const last = (await raw.command({ getMore: cursor.id, collection: 'many' }))['cursor'] as { nextBatch: unknown[], id: unknown }
      assert.equal(last.nextBatch.length, 49)
      assert.equal(Number(last.id), 0)
      const gone = await raw.command({ getMore: cursor.id, collection: 'many' })
      assert.equal(gone['code'], 43)
    } finally {
      raw.close()
    }
  })

  it('cuts a getMore without batchSize at about 1 MiB (a reply is encoded in one stretch); the driver reads on', async () => {
    // 3000 documents of about 1 KiB: one batch would be 3 MiB.
    const pad = 'x'.repeat(1000)
    await wire().client.db('test').collection<{ _id: number, pad: string }>('wide').insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i, pad })))
    const raw = await RawClient.open(wire().server)
    try {
      const first = (await raw.command({ find: 'wide', batchSize: 0 }))['cursor'] as { id: Long }
      const next = (await raw.command({ getMore: first.id, collection: 'wide' }))['cursor'] as { nextBatch: unknown[], id: Long }
      assert.ok(next.nextBatch.length > 900 && next.nextBatch.length < 1100, `${next.nextBatch.length} documents in a batch`)
      assert.ok(!next.id.isZero())
      await raw.command({ killCursors: 'wide', cursors: [first.id] })
    } finally {
      raw.close()
    }
    assert.equal((await wire().client.db('test').collection('wide').find({}).toArray()).length, 3000)
  })

  it('honours batchSize through the driver: every document arrives once, in order', async () => {
    const docs = await wire().client.db('test').collection('many').find({}, { batchSize: 7 }).sort({ _id: -1 }).toArray()
    assert.equal(docs.length, 250)
    assert.deepEqual(docs.slice(0, 3).map((d) => d['_id']), [249, 248, 247])
  })

  it('killCursors closes a cursor; a later getMore is CursorNotFound', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const { cursor } = (await raw.command({ find: 'many', batchSize: 2 })) as { cursor: { id: Long } }
      const killed = await raw.command({ killCursors: 'many', cursors: [cursor.id] })
      assert.equal((killed['cursorsKilled'] as unknown[]).length, 1)
      assert.equal((await raw.command({ getMore: cursor.id, collection: 'many' }))['code'], 43)
    } finally {
      raw.close()
    }
  })

  it('closes the cursors of a connection when it ends', async () => {
    const raw = await RawClient.open(wire().server)
    const { cursor } = (await raw.command({ find: 'many', batchSize: 2 })) as { cursor: { id: Long } }
    raw.close()
    await raw.closed
    const other = await RawClient.open(wire().server)
    try {
      // The server sees the close asynchronously: allow it a bounded number of round trips.
      let reply = await other.command({ getMore: cursor.id, collection: 'many', batchSize: 1 })
      for (let i = 0; i < 50 && reply['code'] !== 43; i++) reply = await other.command({ getMore: cursor.id, collection: 'many', batchSize: 1 })
      assert.equal(reply['code'], 43)
    } finally {
      other.close()
    }
  })

  it('singleBatch and negative limits close the cursor after the first batch', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const single = (await raw.command({ find: 'many', batchSize: 5, singleBatch: true }))['cursor'] as { firstBatch: unknown[], id: unknown }
      assert.equal(single.firstBatch.length, 5)
      assert.equal(Number(single.id), 0)
      const negative = (await raw.command({ find: 'many', limit: -3 }))['cursor'] as { firstBatch: unknown[], id: unknown }
      assert.equal(negative.firstBatch.length, 3)
      assert.equal(Number(negative.id), 0)
    } finally {
      raw.close()
    }
  })
})

describe('open cursors are capped, per connection and in all', () => {
  const wire = useWireServer({ maxCursors: 5, maxCursorsPerConnection: 3 })

  it('refuses a find that would leave one cursor too many open, with OperationFailed, until one is closed', async () => {
    await wire().client.db('test').collection<{ _id: number }>('capped').insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i })))
    const first = await RawClient.open(wire().server)
    const second = await RawClient.open(wire().server)
    try {
      const open = async (raw: RawClient) => (await raw.command({ find: 'capped', batchSize: 2 })) as { ok: number, cursor?: { id: Long }, code?: number, codeName?: string, errmsg?: string }
      const mine = [await open(first), await open(first), await open(first)]
      for (const reply of mine) assert.equal(reply.ok, 1)
      const perConnection = await open(first)
      assert.deepEqual([perConnection.ok, perConnection.code, perConnection.codeName], [0, 96, 'OperationFailed'])
      assert.match(perConnection.errmsg ?? '', /this connection already has 3 open cursors/)
      // A find answered in one batch leaves no cursor, so it is never refused.
      assert.equal((await first.command({ find: 'capped', batchSize: 50 }))['ok'], 1)
      assert.equal((await open(second)).ok, 1)
      assert.equal((await open(second)).ok, 1)
      const total = await open(second)
      assert.deepEqual([total.ok, total.code], [0, 96])
      assert.match(total.errmsg ?? '', /the server already has 5 open cursors/)
      await first.command({ killCursors: 'capped', cursors: [mine[0]?.cursor?.id] })
      assert.equal((await open(second)).ok, 1)
    } finally {
      first.close()
      second.close()
    }
  })
})
