import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { MongoBulkWriteError, MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

const CASELESS = { locale: 'en_US', strength: 2 } as const

interface Word {
  _id: number
  x: string
}

async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`)
  return error
}

describe('collation through the official driver', () => {
  const wire = useWireServer()
  const words = () => wire().client.db('test').collection<Word>('words')

  before(async () => {
    await words().insertMany([
      { _id: 1, x: 'ping' },
      { _id: 2, x: 'PING' },
      { _id: 3, x: 'pong' },
      { _id: 4, x: 'b' },
      { _id: 5, x: 'B' },
    ])
  })

  it('applies to find, count, distinct and sort', async () => {
    assert.deepEqual(await words().find({ x: 'Ping' }, { collation: CASELESS }).toArray(), [
      { _id: 1, x: 'ping' },
      { _id: 2, x: 'PING' },
    ])
    assert.equal(await words().countDocuments({ x: 'PONG' }, { collation: CASELESS }), 1)
    assert.deepEqual(await words().distinct('x', { _id: { $lte: 3 } }, { collation: CASELESS }), ['ping', 'pong'])
    const sorted = await words().find({ _id: { $gte: 3 } }, { sort: { x: -1 }, collation: { locale: 'en' } }).toArray()
    assert.deepEqual(
      sorted.map((doc) => doc.x),
      ['pong', 'B', 'b']
    )
    const aggregated = await words().aggregate([{ $match: { x: 'PING' } }, { $sort: { _id: -1 } }], { collation: CASELESS }).toArray()
    assert.deepEqual(
      aggregated.map((doc) => doc['_id']),
      [2, 1]
    )
  })

  it('applies per statement in a bulk write, and to findOneAndUpdate', async () => {
    const c = wire().client.db('test').collection<Word>('bulk')
    await c.insertMany([
      { _id: 1, x: 'ping' },
      { _id: 2, x: 'PING' },
      { _id: 3, x: 'pong' },
    ])
    const result = await c.bulkWrite([
      { updateMany: { filter: { x: 'Ping' }, update: { $set: { x: 'seen' } }, collation: CASELESS } },
      { deleteOne: { filter: { x: 'PONG' }, collation: CASELESS } },
      { deleteOne: { filter: { x: 'SEEN' } } },
    ])
    assert.equal(result.modifiedCount, 2)
    assert.equal(result.deletedCount, 1)
    const before = await c.findOneAndUpdate({ x: 'SEEN' }, { $set: { x: 'done' } }, { sort: { _id: -1 }, collation: CASELESS })
    assert.deepEqual(before, { _id: 2, x: 'seen' })
  })

  it('answers a malformed collation with the server codes', async () => {
    const invalid = await serverError(words().find({}, { collation: { locale: 'xx' } }).toArray())
    assert.equal(invalid.code, 2)
    assert.equal(invalid.codeName, 'BadValue')
    assert.equal(invalid.message, 'Field \'locale\' is invalid in: { locale: "xx" }')
    const unknown = await serverError(words().countDocuments({}, { collation: { locale: 'en', strenght: 2 } as never }))
    assert.equal(unknown.code, 9)
    assert.equal(unknown.codeName, 'FailedToParse')
    const range = await serverError(words().distinct('x', {}, { collation: { locale: 'en', strength: 0 } }))
    assert.equal(range.code, 9)
    const bulk = await words()
      .bulkWrite([{ deleteOne: { filter: { x: 'b' }, collation: { locale: 'en', caseLevel: 'yes' } as never } }])
      .catch((e: unknown) => e)
    assert.ok(bulk instanceof MongoBulkWriteError)
    const [first] = Array.isArray(bulk.writeErrors) ? bulk.writeErrors : [bulk.writeErrors]
    assert.equal(first?.code, 14)
  })

  it('keeps refusing a default collation on an index or a collection', async () => {
    const index = await serverError(words().createIndex({ x: 1 }, { collation: CASELESS }))
    assert.equal(index.code, 2)
    assert.match(index.message, /collation/)
    const created = await serverError(wire().client.db('test').createCollection('withCollation', { collation: CASELESS }))
    assert.equal(created.code, 2)
    assert.match(created.message, /collation/)
  })
})
