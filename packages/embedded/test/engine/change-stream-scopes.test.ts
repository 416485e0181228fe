import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type Document as DriverDocument, Timestamp } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { ENGINES, useEngine } from './engines.ts'

/** A change event, read loosely (the driver's `Document`): its fields are documents of known shape here. */
type Event = DriverDocument

/** The next `count` changes of a stream (each `next()` waits for a durable write: no timing involved). */
async function take(stream: { next(): Promise<Document> }, count: number): Promise<Event[]> {
  const events: Event[] = []
  for (let i = 0; i < count; i++) events.push(await stream.next())
  return events
}

const types = (events: Event[]) => events.map((event) => event['operationType'])

for (const kind of ENGINES) {
  describe(`change streams of a database and of the engine, and of definitions (${kind})`, () => {
    const db = useEngine(kind)

    it('db.watch() tells the changes of every collection of its database, client.watch() of every database', async () => {
      const other = db().db('other')
      const dbStream = db().watch()
      const allStream = db().client.watch()
      await db().collection('one').insertOne({ _id: 1 })
      await other.collection('two').insertOne({ _id: 2 })
      await db().db('admin').collection('three').insertOne({ _id: 3 })
      await db().collection('four').insertOne({ _id: 4 })
      assert.deepEqual((await take(dbStream, 2)).map((event) => event['ns']['coll']), ['one', 'four'])
      assert.deepEqual((await take(allStream, 3)).map((event) => event['ns']), [
        { db: db().databaseName, coll: 'one' },
        { db: 'other', coll: 'two' },
        { db: db().databaseName, coll: 'four' },
      ])
      await dbStream.close()
      await allStream.close()
    })

    it('ends a collection stream with invalidate after a drop; startAfter that invalidate starts a new stream, resumeAfter it is refused (280)', async () => {
      const coll = db().collection('ended')
      await coll.insertOne({ _id: 1 })
      const stream = coll.watch()
      await db().dropCollection('ended')
      const [drop, invalidate] = await take(stream, 2)
      assert.deepEqual(types([drop!, invalidate!]), ['drop', 'invalidate'])
      assert.equal(stream.closed, true)
      await assert.rejects(stream.next(), /closed/)
      await coll.insertOne({ _id: 2 })
      const next = coll.watch([], { startAfter: invalidate!['_id'] })
      assert.deepEqual((await next.next())['documentKey'], { _id: 2 })
      await next.close()
      assert.throws(() => coll.watch([], { resumeAfter: invalidate!['_id'] }), { code: 280 })
    })

    it('renames a collection: its documents, indexes and options move, streams see rename (and the replaced target drop)', async () => {
      const source = db().collection('from')
      await source.insertOne({ _id: 1, k: 'a' })
      await source.createIndex({ k: 1 }, { unique: true })
      await db().modifyCollection('from', { changeStreamPreAndPostImages: { enabled: false } })
      await db().collection('to').insertOne({ _id: 'replaced' })
      const dbStream = db().watch([], { showExpandedEvents: true })
      const sourceStream = source.watch()
      await assert.rejects(db().renameCollection('from', 'to'), { code: 48 })
      await db().renameCollection('from', 'to', { dropTarget: true })
      assert.deepEqual(await db().collection('to').find({}).toArray(), [{ _id: 1, k: 'a' }])
      await assert.rejects(db().collection('to').insertOne({ _id: 2, k: 'a' }), { code: 11000 })
      assert.equal(db().listCollectionNames().includes('from'), false)
      const [drop, rename] = await take(dbStream, 2)
      assert.deepEqual([drop!['operationType'], drop!['ns']['coll']], ['drop', 'to'])
      assert.deepEqual(rename!['to'], { db: db().databaseName, coll: 'to' })
      assert.ok(rename!['operationDescription']['dropTarget'] !== undefined)
      assert.deepEqual(types(await take(sourceStream, 2)), ['rename', 'invalidate'])
      // The options went with it: no image before a change.
      const images = db().collection('to').watch([], { fullDocumentBeforeChange: 'whenAvailable' })
      await db().collection('to').updateOne({ _id: 1 }, { $set: { k: 'b' } })
      assert.equal((await images.next())['fullDocumentBeforeChange'], null)
      await images.close()
      await dbStream.close()
      await assert.rejects(db().renameCollection('nowhere', 'x'), { code: 26 })
    })

    it('describes an update by the paths it changed: nested fields, array elements, a shortened array, and with showExpandedEvents the ambiguous paths', async () => {
      const coll = db().collection('described')
      await coll.insertOne({ _id: 1, a: { '1': 1, keep: true }, list: ['x', { y: 1 }, 3, 4], gone: 1 })
      const stream = coll.watch([], { showExpandedEvents: true })
      await coll.updateOne({ _id: 1 }, [{ $set: { 'a.1': 2, list: ['x', { y: 2 }] } }, { $unset: 'gone' }])
      const { updateDescription } = await stream.next()
      assert.deepEqual(updateDescription, {
        updatedFields: { 'a.1': 2, 'list.1.y': 2 },
        removedFields: ['gone'],
        truncatedArrays: [{ field: 'list', newSize: 2 }],
        disambiguatedPaths: { 'a.1': ['a', '1'], 'list.1.y': ['list', 1, 'y'] },
      })
      await stream.close()
    })

    it('starts at a time (startAtOperationTime): the change at that clusterTime and the ones after, each with its wallTime', async () => {
      const coll = db().collection('timed')
      const stream = coll.watch()
      await coll.insertOne({ _id: 1 })
      await coll.insertOne({ _id: 2 })
      const [first] = await take(stream, 1)
      await stream.close()
      assert.ok(first!['clusterTime'] instanceof Timestamp)
      assert.ok(first!['wallTime'] instanceof Date)
      const again = coll.watch([], { startAtOperationTime: first!['clusterTime'] })
      assert.deepEqual((await take(again, 2)).map((event) => event['documentKey']['_id']), [1, 2])
      await again.close()
    })

    it('tells create, createIndexes, dropIndexes and modify only with showExpandedEvents; a transaction that creates tells at its commit', async () => {
      const expanded = db().watch([], { showExpandedEvents: true })
      const plain = db().watch()
      const session = db().client.startSession()
      await session.withTransaction(async () => {
        const inside = session.transaction!.db(db().databaseName)
        await inside.createCollection('made')
        await inside.collection('made').insertOne({ _id: 1 })
      })
      await session.endSession()
      await db().collection('made').createIndex({ n: 1 })
      await db().collection('made').dropIndex('n_1')
      await db().modifyCollection('made')
      await db().collection('made').insertOne({ _id: 2 })
      assert.deepEqual(types(await take(expanded, 6)), ['create', 'insert', 'createIndexes', 'dropIndexes', 'modify', 'insert'])
      assert.deepEqual(types(await take(plain, 2)), ['insert', 'insert'])
      await expanded.close()
      await plain.close()
      await assert.rejects(db().modifyCollection('made', { validator: {} } as never), { code: 2 })
      await assert.rejects(db().modifyCollection('absent'), { code: 26 })
    })
  })
}
