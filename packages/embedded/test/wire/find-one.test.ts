import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ObjectId } from 'mongodb'
import { RawClient, useWireServer } from './wire-harness.ts'

/**
 * The driver's findOne is a find of one document in a single batch: answered without a server
 * cursor, with the same answers as any find (other options, views and filters included).
 */
describe('findOne over the wire', () => {
  const wire = useWireServer()
  const ids = [new ObjectId(), new ObjectId()]

  it('answers the document by ObjectId, null for a missing one, through the driver', async () => {
    const users = wire().client.db('test').collection('users')
    await users.insertMany([{ _id: ids[0]!, name: 'a', age: 20 }, { _id: ids[1]!, name: 'b', age: 30 }])
    assert.deepEqual(await users.findOne({ _id: ids[1]! }), { _id: ids[1], name: 'b', age: 30 })
    assert.equal(await users.findOne({ _id: new ObjectId() }), null)
    assert.deepEqual(await users.findOne({ _id: ids[0]! }, { projection: { name: 1 } }), { _id: ids[0], name: 'a' })
    assert.equal((await users.findOne({ age: { $gt: 25 } }))?.['name'], 'b')
    await wire().client.db('test').createCollection('old', { viewOn: 'users', pipeline: [{ $match: { age: { $gt: 25 } } }] })
    assert.equal(await wire().client.db('test').collection('old').findOne({ _id: ids[0]! }), null)
  })

  it('answers a one-document single batch with cursor id 0, as any find', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      for (const command of [{ find: 'users', filter: { _id: ids[0] }, limit: 1, singleBatch: true, batchSize: 1 }, { find: 'users', filter: { _id: ids[0] }, limit: -1 }]) {
        const cursor = (await raw.command(command))['cursor'] as { firstBatch: { name: string }[], id: unknown, ns: string }
        assert.deepEqual(cursor.firstBatch.map((doc) => doc.name), ['a'])
        assert.equal(Number(cursor.id), 0)
        assert.equal(cursor.ns, 'test.users')
      }
      const batch = (await raw.command({ find: 'users', batchSize: 2, singleBatch: true }))['cursor'] as { firstBatch: unknown[] }
      assert.equal(batch.firstBatch.length, 2)
      const empty = (await raw.command({ find: 'users', filter: { _id: new ObjectId() }, limit: 1, singleBatch: true }))['cursor'] as { firstBatch: unknown[] }
      assert.deepEqual(empty.firstBatch, [])
    } finally {
      raw.close()
    }
  })
})
