import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/** Views through the official driver: `create` with `viewOn` and `pipeline`, reads, and the 166 refusal of writes. */
describe('views over the wire', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('views')

  it('creates a view, counts and finds through it, and refuses writes with 166', async () => {
    await db().collection<{ _id: number }>('base').insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }])
    await db().createCollection('v', { viewOn: 'base', pipeline: [{ $match: { _id: { $gt: 1 } } }] })
    assert.equal(await db().collection('v').estimatedDocumentCount(), 2)
    assert.deepEqual(await db().collection('v').find({}, { sort: { _id: -1 } }).toArray(), [{ _id: 3 }, { _id: 2 }])
    // The whole command fails, as on mongod, rather than one statement with a write error.
    const reply = await db().command({ insert: 'v', documents: [{ a: 1 }] }).catch((e: unknown) => e)
    assert.ok(reply instanceof MongoServerError)
    assert.equal(reply.code, 166)
    assert.equal(reply.errorResponse['writeErrors'], undefined)
    await assert.rejects(db().collection('v').updateMany({}, { $set: { a: 1 } }), { code: 166 })
    const [info] = await db().listCollections({ name: 'v' }).toArray()
    assert.equal(info?.type, 'view')
    assert.equal(await db().dropCollection('v'), true)
    assert.deepEqual(await db().listCollections({ name: 'v' }).toArray(), [])
  })
})
