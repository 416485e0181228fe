import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Binary, MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/**
 * `$out`, `$merge` and `aggregate: 1` through the official driver: the aggregate command writes
 * before it answers, with an empty first batch and no cursor, and MongoDB's errors come back whole.
 */
describe('aggregate with $out and $merge over the wire', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('agg')

  it('$out answers an empty first batch with cursor id 0, and the target holds the results', async () => {
    await db().collection<{ _id: number, x: number }>('src').insertMany([{ _id: 1, x: 11 }, { _id: 2, x: 22 }, { _id: 3, x: 33 }])
    const raw = await db().command({ aggregate: 'src', pipeline: [{ $match: { _id: { $gt: 1 } } }, { $out: 'dst' }], cursor: { batchSize: 0 } })
    assert.deepEqual(raw['cursor'].firstBatch, [])
    assert.equal(Number(raw['cursor'].id), 0)
    assert.equal(raw['cursor'].ns, 'agg.src')
    assert.deepEqual(await db().collection('dst').find().sort({ _id: 1 }).toArray(), [{ _id: 2, x: 22 }, { _id: 3, x: 33 }])
  })

  it('$merge whenMatched fail answers DuplicateKey with keyPattern and keyValue', async () => {
    const error = await db()
      .aggregate([{ $documents: [{ _id: 2, x: 1 }] }, { $merge: { into: 'src', whenMatched: 'fail' } }])
      .toArray()
      .catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 11000)
    assert.deepEqual(error.errorResponse['keyPattern'], { _id: 1 })
    assert.deepEqual(error.errorResponse['keyValue'], { _id: 2 })
  })

  it('aggregate: 1 runs $documents and $lookup, and refuses a collection stage first with InvalidNamespace', async () => {
    const docs = await db().aggregate([{ $documents: [{ ref: 3 }] }, { $lookup: { from: 'src', localField: 'ref', foreignField: '_id', as: 'found' } }]).toArray()
    assert.deepEqual(docs, [{ ref: 3, found: [{ _id: 3, x: 33 }] }])
    await assert.rejects(db().aggregate([{ $match: {} }]).toArray(), { code: 73, codeName: 'InvalidNamespace' })
    // $currentOp runs as on mongod: against admin only (admin-commands.test.ts covers what it answers there).
    await assert.rejects(db().aggregate([{ $currentOp: {} }]).toArray(), /\$currentOp must be run against the 'admin' database/)
  })

  it('$listLocalSessions lists the sessions clients used, with their id and last use', async () => {
    const sessions = await wire().client.db('admin').aggregate([{ $listLocalSessions: {} }]).toArray()
    assert.ok(sessions.length >= 1)
    const [first] = sessions
    assert.ok(first?.['_id'].id instanceof Binary)
    assert.equal(first['_id'].id.sub_type, 4)
    assert.ok(first['lastUse'] instanceof Date)
    assert.deepEqual(await wire().client.db('admin').aggregate([{ $listLocalSessions: { users: [{ user: 'u', db: 'admin' }] } }]).toArray(), [])
  })
})
