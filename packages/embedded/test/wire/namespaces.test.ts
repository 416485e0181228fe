import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/**
 * Over the wire, a collection name is any BSON string: one with a NUL byte or a `$` is answered with
 * InvalidNamespace (73), as mongod answers it, wherever a command or a pipeline names a collection,
 * and so is a write to the engine's `system.*` collections; an index name with a NUL byte gets
 * CannotCreateIndex (67). (On disk such a name would reach another collection's storage.)
 */

/** Documents with `_id`s of any type (the driver's default schema expects ObjectIds). */
type Row = { _id: unknown, [field: string]: unknown }

const invalidNamespace = (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 73)
  assert.equal(error.codeName, 'InvalidNamespace')
  return true
}

describe('collection and index names over the wire', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('test')
  const coll = (name: string) => db().collection<Row>(name)

  it('answers a collection name with a NUL byte or a $ with InvalidNamespace, in commands and pipelines', async () => {
    await coll('a').insertOne({ _id: 1 })
    for (const name of ['a\u0000b', 'a$b']) {
      await assert.rejects(coll(name).insertOne({ _id: 1 }), invalidNamespace)
      await assert.rejects(db().collection(name).find({}).toArray(), invalidNamespace)
      await assert.rejects(db().collection(name).aggregate([]).toArray(), invalidNamespace)
      await assert.rejects(db().collection('a').aggregate([{ $lookup: { from: name, localField: '_id', foreignField: '_id', as: 'j' } }]).toArray(), invalidNamespace)
      await assert.rejects(db().collection('a').aggregate([{ $unionWith: name }]).toArray(), invalidNamespace)
    }
    assert.deepEqual(await db().collection('a').find({}).toArray(), [{ _id: 1 }])
  })

  it('answers a write to system.views with InvalidNamespace, and lets it be read', async () => {
    await db().createCollection('v', { viewOn: 'a', pipeline: [] })
    // A write error of the statement, for insert and delete (their commands answer per statement).
    const refused = { code: 73, message: "cannot write to 'test.system.views'" }
    await assert.rejects(coll('system.views').insertOne({ _id: 'test.w', viewOn: 'a' }), refused)
    await assert.rejects(db().collection('system.views').deleteMany({}), refused)
    assert.deepEqual(await db().collection('system.views').find({}, { projection: { _id: 1 } }).toArray(), [{ _id: 'test.v' }])
  })

  it('answers an index name with a NUL byte with CannotCreateIndex', async () => {
    await assert.rejects(db().collection('a').createIndex({ x: 1 }, { name: 'x\u0000y' }), { code: 67, codeName: 'CannotCreateIndex' })
  })
})
