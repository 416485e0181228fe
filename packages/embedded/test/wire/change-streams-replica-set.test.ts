import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { ChangeStream, ChangeStreamDocument, CommandStartedEvent, Document } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

type Event = ChangeStreamDocument<Document> & Document

/** The driver's stream has run its aggregate (it does on the first read), nothing consumed: a change after this is the stream's. */
async function opened(stream: ChangeStream): Promise<void> {
  assert.equal(await stream.tryNext(), null)
}

/**
 * Change streams as a driver uses them with a replica set: `startAtOperationTime` from a reply's
 * `operationTime`, resumption after a network error or a resumable error (from the
 * `postBatchResumeToken`), streams of a database and of every database, and the events of a
 * collection's definition (drop, rename, then `invalidate`; with `showExpandedEvents` create,
 * createIndexes, dropIndexes, modify).
 */
describe('change streams of a replica set, through the official driver', () => {
  const wire = useWireServer({ replSet: 'rs0' }, { replicaSet: 'rs0', monitorCommands: true })
  const db = () => wire().client.db('streams')
  const admin = () => wire().client.db('admin')

  afterEach(async () => {
    await admin().command({ configureFailPoint: 'failCommand', mode: 'off' })
    await admin().command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: 'off' })
  })

  it("starts at a write's operationTime (startAtOperationTime): that write and the ones after it", async () => {
    const coll = db().collection('timed')
    await coll.insertOne({ _id: 0 } as Document)
    const session = wire().client.startSession()
    await coll.insertOne({ _id: 1 } as Document, { session })
    const time = session.operationTime!
    await session.endSession()
    await coll.insertOne({ _id: 2 } as Document)
    const stream = coll.watch([], { startAtOperationTime: time })
    const seen = [await stream.next(), await stream.next()] as Event[]
    assert.deepEqual(seen.map((event) => event['documentKey']['_id']), [1, 2])
    assert.deepEqual(seen[0]!['clusterTime'], time)
    await stream.close()
  })

  it('resumes after the connection of its getMore closes, from the postBatchResumeToken, losing nothing', async () => {
    const coll = db().collection('resumed')
    const stream = coll.watch()
    await opened(stream)
    const token = stream.resumeToken
    assert.ok(token !== undefined, 'the first batch gave a postBatchResumeToken')
    const aggregates: Document[] = []
    const listen = (event: CommandStartedEvent) => {
      if (event.commandName === 'aggregate' && event.command['aggregate'] === 'resumed') aggregates.push(event.command)
    }
    wire().client.on('commandStarted', listen)
    try {
      await admin().command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['getMore'], closeConnection: true } })
      await coll.insertOne({ _id: 'after' } as Document)
      assert.deepEqual(((await stream.next()) as Event)['documentKey'], { _id: 'after' })
      assert.deepEqual(aggregates.map((command) => command['pipeline'][0]['$changeStream']['resumeAfter']), [token])
    } finally {
      wire().client.off('commandStarted', listen)
      await stream.close()
    }
  })

  it('resumes after a resumable error of its getMore (labelled ResumableChangeStreamError), and not after another', async () => {
    const coll = db().collection('labelled')
    const stream = coll.watch()
    await opened(stream)
    await admin().command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: { times: 1 }, data: { errorCode: 10107 } })
    await coll.insertOne({ _id: 1 } as Document)
    assert.deepEqual(((await stream.next()) as Event)['documentKey'], { _id: 1 })
    await admin().command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: { times: 1 }, data: { errorCode: 2 } })
    await coll.insertOne({ _id: 2 } as Document)
    await assert.rejects(stream.next(), { code: 2 })
    await stream.close()
  })

  it("watches a database (db.watch) and every database (client.watch), the server's own databases left out", async () => {
    const dbStream = db().watch()
    const allStream = wire().client.watch()
    await opened(dbStream)
    await opened(allStream)
    await db().collection('a').insertOne({ _id: 'a' } as Document)
    await wire().client.db('elsewhere').collection('b').insertOne({ _id: 'b' } as Document)
    await admin().collection('c').insertOne({ _id: 'c' } as Document)
    await db().collection('d').insertOne({ _id: 'd' } as Document)
    const inDb = [await dbStream.next(), await dbStream.next()] as Event[]
    assert.deepEqual(inDb.map((event) => event['ns']), [{ db: 'streams', coll: 'a' }, { db: 'streams', coll: 'd' }])
    const inAll = [await allStream.next(), await allStream.next(), await allStream.next()] as Event[]
    assert.deepEqual(inAll.map((event) => event['ns']['coll']), ['a', 'b', 'd'])
    await dbStream.close()
    await allStream.close()
  })

  it("ends a collection's stream with invalidate after its drop or rename, and a database's after dropDatabase", async () => {
    const dropped = db().collection('dropped')
    await dropped.insertOne({ _id: 1 } as Document)
    const stream = dropped.watch()
    await opened(stream)
    await db().dropCollection('dropped')
    assert.deepEqual([(await stream.next()).operationType, (await stream.next()).operationType], ['drop', 'invalidate'])
    assert.equal(stream.closed, true)

    const renamed = db().collection('renamed')
    await renamed.insertOne({ _id: 1 } as Document)
    const renames = renamed.watch()
    await opened(renames)
    await renamed.rename('moved')
    const rename = (await renames.next()) as Event
    assert.deepEqual([rename.operationType, rename['to']], ['rename', { db: 'streams', coll: 'moved' }])
    assert.equal((await renames.next()).operationType, 'invalidate')
    await renames.close()

    const gone = wire().client.db('gone')
    await gone.collection('x').insertOne({ _id: 1 } as Document)
    const dbStream = gone.watch()
    await opened(dbStream)
    await gone.dropDatabase()
    const events = [await dbStream.next(), await dbStream.next(), await dbStream.next()] as Event[]
    assert.deepEqual(events.map((event) => event.operationType), ['drop', 'dropDatabase', 'invalidate'])
    await dbStream.close()
  })

  it('tells definition changes with showExpandedEvents: create, createIndexes, dropIndexes, modify, with collectionUUID', async () => {
    const stream = db().watch([], { showExpandedEvents: true })
    await opened(stream)
    await db().createCollection('defined')
    await db().collection('defined').createIndex({ x: 1 }, { name: 'x_1' })
    await db().collection('defined').dropIndex('x_1')
    await db().command({ collMod: 'defined' })
    const events = [await stream.next(), await stream.next(), await stream.next(), await stream.next()] as Event[]
    assert.deepEqual(events.map((event) => event.operationType), ['create', 'createIndexes', 'dropIndexes', 'modify'])
    assert.deepEqual(events[1]!['operationDescription'], { indexes: [{ v: 2, key: { x: 1 }, name: 'x_1' }] })
    assert.ok(events.every((event) => event['collectionUUID'] !== undefined))
    await stream.close()
    const plain = db().watch()
    await opened(plain)
    await db().collection('defined').createIndex({ y: 1 })
    await db().collection('defined').insertOne({ _id: 1 } as Document)
    assert.equal((await plain.next()).operationType, 'insert')
    await plain.close()
  })

  it("gives no images once collMod turned a collection's changeStreamPreAndPostImages off: whenAvailable null, required an error", async () => {
    const coll = db().collection('imaged')
    await coll.insertOne({ _id: 1, n: 0 } as Document)
    await db().command({ collMod: 'imaged', changeStreamPreAndPostImages: { enabled: false } })
    const available = coll.watch([], { fullDocument: 'whenAvailable', fullDocumentBeforeChange: 'whenAvailable' })
    const required = coll.watch([], { fullDocumentBeforeChange: 'required' })
    await opened(available)
    await opened(required)
    await coll.updateOne({ _id: 1 } as Document, { $set: { n: 1 } })
    const event = (await available.next()) as Event
    assert.deepEqual([event['fullDocument'], event['fullDocumentBeforeChange']], [null, null])
    await assert.rejects(required.next(), { code: 47 })
    await db().command({ collMod: 'imaged', changeStreamPreAndPostImages: { enabled: true } })
    await coll.updateOne({ _id: 1 } as Document, { $set: { n: 2 } })
    assert.deepEqual(((await available.next()) as Event)['fullDocumentBeforeChange'], { _id: 1, n: 1 })
    await available.close()
    await required.close()
  })

  it('renames a collection with its documents and indexes (collection.rename); dropTarget replaces an existing one', async () => {
    const source = db().collection('source')
    await source.insertMany([{ _id: 1, k: 'a' }, { _id: 2, k: 'b' }] as Document[])
    await source.createIndex({ k: 1 }, { unique: true })
    await db().collection('target').insertOne({ _id: 'old' } as Document)
    await assert.rejects(source.rename('target'), { code: 48 })
    await source.rename('target', { dropTarget: true })
    const target = db().collection('target')
    assert.deepEqual(await target.find({}).sort({ _id: 1 }).toArray(), [{ _id: 1, k: 'a' }, { _id: 2, k: 'b' }])
    assert.deepEqual((await target.listIndexes().toArray()).map((index) => index['name']), ['_id_', 'k_1'])
    await assert.rejects(target.insertOne({ _id: 3, k: 'a' } as Document), { code: 11000 })
    assert.equal((await db().listCollections({ name: 'source' }).toArray()).length, 0)
    await assert.rejects(db().collection('missing').rename('other'), { code: 26 })
  })
})
