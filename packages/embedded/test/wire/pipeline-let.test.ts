import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MongoBulkWriteError, MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

interface Doc {
  _id: number
  [field: string]: unknown
}

const byId = { $expr: { $eq: ['$_id', '$$id'] } }

describe('pipeline-style updates and let through the official driver', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('test')
  const coll = (name: string) => db().collection<Doc>(name)

  it('updateOne, updateMany, findOneAndUpdate and bulkWrite take an update pipeline, upserts too', async () => {
    await coll('pipe').insertMany([{ _id: 1, qty: 2, price: 5 }, { _id: 2, qty: 1, price: 3 }])
    assert.equal((await coll('pipe').updateOne({ _id: 1 }, [{ $set: { total: { $multiply: ['$qty', '$price'] } } }])).modifiedCount, 1)
    assert.equal((await coll('pipe').updateMany({}, [{ $unset: 'price' }])).modifiedCount, 2)
    const after = await coll('pipe').findOneAndUpdate({ _id: 2 }, [{ $set: { qty: { $add: ['$qty', 1] } } }], { returnDocument: 'after' })
    assert.deepEqual(after, { _id: 2, qty: 2 })
    const bulk = await coll('pipe').bulkWrite([
      { updateOne: { filter: { _id: 1 }, update: [{ $replaceWith: { $setField: { field: { $literal: '$a' }, value: 1, input: '$$ROOT' } } }] } },
      { updateMany: { filter: { _id: 3 }, update: [{ $set: { made: true } }], upsert: true } },
    ])
    assert.deepEqual([bulk.modifiedCount, bulk.upsertedCount, bulk.upsertedIds], [1, 1, { 1: 3 }])
    assert.deepEqual(await coll('pipe').find().toArray(), [{ _id: 1, qty: 2, total: 10, $a: 1 }, { _id: 2, qty: 2 }, { _id: 3, made: true }])
  })

  it('answers a stage an update cannot run as a write error 72, and a changed _id as 66', async () => {
    await coll('pipe-err').insertOne({ _id: 1 })
    const error = await coll('pipe-err').updateOne({ _id: 1 }, [{ $set: { a: 1 } }, { $sort: { a: 1 } }]).catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.deepEqual([error.code, error.message], [72, '$sort is not allowed to be used within an update'])
    const bulk = await coll('pipe-err').bulkWrite([{ updateOne: { filter: { _id: 1 }, update: [{ $set: { _id: 2 } }] } }]).catch((e: unknown) => e)
    assert.ok(bulk instanceof MongoBulkWriteError)
    assert.equal(bulk.code, 66)
    const fam = await coll('pipe-err').findOneAndUpdate({ _id: 1 }, [{ $match: {} }]).catch((e: unknown) => e)
    assert.ok(fam instanceof MongoServerError)
    assert.equal(fam.code, 72)
    // The driver refuses this pipeline itself; sent as a command, the server's check answers.
    const raw = await db().command({ update: 'pipe-err', updates: [{ q: {}, u: [{ foo: 1 }] }] })
    assert.deepEqual(raw['writeErrors'], [{ index: 0, code: 40324, errmsg: "Unrecognized pipeline stage name: 'foo'" }])
    assert.deepEqual(await coll('pipe-err').find().toArray(), [{ _id: 1 }])
  })

  it('find, aggregate, update, replace, delete, findOneAnd* and bulkWrite take let', async () => {
    await coll('let').insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }])
    assert.deepEqual(await coll('let').find(byId, { let: { id: 1 } }).toArray(), [{ _id: 1 }])
    const pipeline = [{ $match: byId }, { $project: { _id: 0, x: '$$x', y: '$$y' } }]
    assert.deepEqual(await coll('let').aggregate(pipeline, { let: { id: 1, x: 'foo', y: { $literal: '$bar' } } }).toArray(), [{ x: 'foo', y: '$bar' }])
    await coll('let').updateOne(byId, [{ $set: { x: '$$x' } }], { let: { id: 1, x: 'foo' } })
    await coll('let').replaceOne(byId, { r: 1 }, { let: { id: 2 } })
    await coll('let').findOneAndUpdate(byId, { $set: { f: 1 } }, { let: { id: 3 } })
    await coll('let').bulkWrite([{ updateMany: { filter: { $expr: { $gte: ['$_id', '$$min'] } }, update: [{ $set: { b: '$$b' } }] } }], { let: { min: 3, b: 'bulk' } })
    assert.deepEqual(await coll('let').find().toArray(), [{ _id: 1, x: 'foo' }, { _id: 2, r: 1 }, { _id: 3, f: 1, b: 'bulk' }, { _id: 4, b: 'bulk' }])
    assert.deepEqual(await coll('let').findOneAndDelete(byId, { let: { id: 4 } }), { _id: 4, b: 'bulk' })
    assert.equal((await coll('let').deleteMany({ $expr: { $lt: ['$_id', '$$max'] } }, { let: { max: 3 } })).deletedCount, 2)
    assert.equal((await coll('let').deleteOne(byId, { let: { id: 3 } })).deletedCount, 1)
    assert.equal(await coll('let').countDocuments(), 0)
  })

  it("refuses a bad let with MongoDB's codes, and writes nothing: find, aggregate and findAndModify fail, update and delete statements each get the write error", async () => {
    await coll('let-bad').insertOne({ _id: 1 })
    const commands: [object, number][] = [
      [{ findAndModify: 'let-bad', query: {}, remove: true, let: { v: '$a' } }, 4890500],
      [{ find: 'let-bad', filter: {}, let: { NOW: 1 } }, 4738901],
      [{ aggregate: 'let-bad', pipeline: [], cursor: {}, let: [] }, 14],
    ]
    for (const [command, code] of commands) {
      const error = await db().command(command).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError, `${JSON.stringify(command)} succeeded`)
      assert.equal(error.code, code, JSON.stringify(command))
    }
    const writes: [object, number][] = [
      [{ update: 'let-bad', updates: [{ q: {}, u: { $set: { a: 1 } } }], let: 5 }, 14],
      [{ delete: 'let-bad', deletes: [{ q: {}, limit: 0 }], let: { Bad: 1 } }, 9],
    ]
    for (const [command, code] of writes) {
      const reply = await db().command(command)
      assert.equal(reply['writeErrors']?.[0]?.code, code, JSON.stringify(command))
    }
    const driver = await coll('let-bad').updateOne({}, { $set: { a: 1 } }, { let: { Bad: 1 } }).catch((e: unknown) => e)
    assert.ok(driver instanceof MongoServerError)
    assert.equal(driver.code, 9)
    assert.deepEqual(await coll('let-bad').find().toArray(), [{ _id: 1 }])
  })

  it("takes an update statement's constants (c) for a pipeline, over the command's let; refuses them otherwise", async () => {
    await coll('consts').insertMany([{ _id: 1 }, { _id: 2 }])
    const reply = await db().command({ update: 'consts', let: { v: 'let', id: 1 }, updates: [{ q: byId, u: [{ $set: { v: '$$v' } }], c: { v: 'c' } }, { q: { _id: 2 }, u: [{ $set: { v: '$$v' } }] }] })
    assert.deepEqual([reply['n'], reply['nModified'], reply['writeErrors']], [2, 2, undefined])
    assert.deepEqual(await coll('consts').find().toArray(), [{ _id: 1, v: 'c' }, { _id: 2, v: 'let' }])
    const refused = await db().command({ update: 'consts', updates: [{ q: {}, u: { $set: { w: 1 } }, c: { k: 1 } }] })
    assert.deepEqual(refused['writeErrors'], [{ index: 0, code: 51198, errmsg: 'Constant values may only be specified for pipeline updates' }])
    const badName = await db().command({ update: 'consts', updates: [{ q: {}, u: [{ $set: { w: 1 } }], c: { 'a-b': 1 } }] })
    assert.equal(badName['writeErrors'][0].code, 9)
    // Valid for MongoDB, which reads constants by a looser rule than let's; the engine refuses it clearly.
    const upper = await db().command({ update: 'consts', updates: [{ q: {}, u: [{ $set: { w: '$$K' } }], c: { K: 1 } }] })
    assert.equal(upper['writeErrors'][0].code, 2)
    assert.match(upper['writeErrors'][0].errmsg, /does not support constants \('c'\) whose name starts with an uppercase letter/)
    assert.deepEqual(await coll('consts').find().toArray(), [{ _id: 1, v: 'c' }, { _id: 2, v: 'let' }])
  })
})
