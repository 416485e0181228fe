import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChangeStreamDocument, Document } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/**
 * The official driver's `collection.watch()` through the wire server: `aggregate` with a
 * `$changeStream` first stage, then getMores that wait for changes (awaitData), as on a replica set.
 */
describe('change streams over the wire', () => {
  const wire = useWireServer()

  it("serves the driver's watch(): each change, with its images, resumable", async () => {
    const coll = wire().client.db('test').collection('watched')
    const stream = coll.watch([], { fullDocument: 'updateLookup', fullDocumentBeforeChange: 'whenAvailable' })
    // The driver runs its aggregate on the first read: a tryNext() before the writes starts the stream there.
    assert.equal(await stream.tryNext(), null)
    await coll.insertOne({ _id: 1 as never, n: 1 })
    await coll.updateOne({ _id: 1 as never }, { $set: { n: 2 } })
    await coll.deleteOne({ _id: 1 as never })
    const events: ChangeStreamDocument<Document>[] = []
    for (let i = 0; i < 3; i++) events.push(await stream.next())
    assert.deepEqual(events.map((event) => event.operationType), ['insert', 'update', 'delete'])
    const update = events[1] as ChangeStreamDocument<Document> & { fullDocument: Document, fullDocumentBeforeChange: Document }
    assert.deepEqual(update.fullDocument, { _id: 1, n: 2 })
    assert.deepEqual(update.fullDocumentBeforeChange, { _id: 1, n: 1 })
    assert.deepEqual((events[0] as { ns?: unknown }).ns, { db: 'test', coll: 'watched' })
    await stream.close()

    await coll.insertOne({ _id: 2 as never })
    const resumed = coll.watch([], { resumeAfter: events[0]!._id })
    const again: ChangeStreamDocument<Document>[] = []
    for (let i = 0; i < 3; i++) again.push(await resumed.next())
    assert.deepEqual(again.map((event) => event.operationType), ['update', 'delete', 'insert'])
    await resumed.close()
  })

  it("emits 'change' events with the driver's listener API, and refuses a lost resume point", async () => {
    const coll = wire().client.db('test').collection('listened')
    const stream = coll.watch([{ $match: { operationType: 'insert' } }])
    const heard = new Promise<ChangeStreamDocument<Document>>((resolve) => stream.once('change', resolve))
    // The listener starts the stream; a change before its first batch would not be seen: wait for the first getMore.
    await new Promise((resolve) => stream.once('resumeTokenChanged', resolve))
    await coll.insertOne({ _id: 'x' as never })
    assert.deepEqual(((await heard) as { documentKey: Document }).documentKey, { _id: 'x' })
    await stream.close()
    const bad = coll.watch([], { resumeAfter: { _data: 'ffffffffffffffff' } })
    await assert.rejects(bad.tryNext(), { code: 280 })
    await bad.close()
  })

  it('sends a backlog larger than a reply may be in several batches, each change once, in order', async () => {
    const coll = wire().client.db('test').collection('backlog')
    const stream = coll.watch()
    assert.equal(await stream.tryNext(), null)
    // 60 changes of 400 KB: 24 MB, past the 16 MiB one reply may carry (one batch of them failed the stream).
    const big = 'x'.repeat(400 * 1024)
    for (let i = 0; i < 60; i++) await coll.insertOne({ _id: i as never, big })
    const keys: unknown[] = []
    for (let i = 0; i < 60; i++) keys.push(((await stream.next()) as { documentKey: Document }).documentKey['_id'])
    assert.deepEqual(keys, Array.from({ length: 60 }, (_, i) => i))
    await stream.close()
  })
})
