import assert from 'node:assert/strict'
import { after, before, beforeEach, it } from 'node:test'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp, ns } from './data-api-harness.ts'

describeEachStore('Data API update operators', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode)
  })
  after(() => t.close())
  beforeEach(async () => {
    await t.call('deleteMany', { ...ns(), filter: {} })
    await t.call('insertOne', { ...ns(), document: { name: 'a', qty: 5, price: 2, tags: ['x', 'y', 'x2'], sizes: [{ size: 'S', n: 1 }, { size: 'L', n: 3 }] } })
  })

  /** Applies `update` to the document and answers it as stored (without _id). */
  async function updated(update: Json): Promise<Json> {
    const res = await t.call('updateOne', { ...ns(), filter: { name: 'a' }, update })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return (await t.call('findOne', { ...ns(), filter: {}, projection: { _id: 0 } })).body.document
  }
  const refused = async (update: Json) => t.call('updateOne', { ...ns(), filter: { name: 'a' }, update })

  it('$set and $unset, nested paths and array items included', async () => {
    assert.deepEqual((await updated({ $set: { 'sizes.1.n': 4, price: 3 }, $unset: { tags: '' } })).sizes, [{ size: 'S', n: 1 }, { size: 'L', n: 4 }])
    const doc = (await t.call('findOne', { ...ns(), filter: {}, projection: { _id: 0, tags: 1, price: 1 } })).body.document
    assert.deepEqual(doc, { price: 3 })
  })

  it('$inc and $mul (a missing field: the amount, and 0)', async () => {
    const doc = await updated({ $inc: { qty: -2 }, $mul: { price: 2.5 } })
    assert.equal(doc.qty, 3)
    assert.equal(doc.price, 5)
    assert.equal((await updated({ $unset: { qty: '' } })).qty, undefined)
    assert.equal((await updated({ $inc: { qty: 7 } })).qty, 7)
  })

  it('$min and $max', async () => {
    const doc = await updated({ $min: { qty: 3 }, $max: { price: 1 } })
    assert.equal(doc.qty, 3)
    assert.equal(doc.price, 2)
  })

  it('$push (with $each, $position, $sort, $slice), $addToSet, $pop', async () => {
    assert.deepEqual((await updated({ $push: { tags: 'z' } })).tags, ['x', 'y', 'x2', 'z'])
    assert.deepEqual((await updated({ $push: { tags: { $each: ['b', 'a'], $sort: 1, $slice: 3 } } })).tags, ['a', 'b', 'x'])
    assert.deepEqual((await updated({ $push: { tags: { $each: ['first'], $position: 0 } } })).tags, ['first', 'a', 'b', 'x'])
    assert.deepEqual((await updated({ $addToSet: { tags: { $each: ['a', 'new'] } } })).tags, ['first', 'a', 'b', 'x', 'new'])
    assert.deepEqual((await updated({ $pop: { tags: -1 } })).tags, ['a', 'b', 'x', 'new'])
    assert.deepEqual((await updated({ $pop: { tags: 1 } })).tags, ['a', 'b', 'x'])
  })

  it('$pull (a value, a condition, a query on sub-documents) and $pullAll', async () => {
    assert.deepEqual((await updated({ $pull: { tags: 'y' } })).tags, ['x', 'x2'])
    assert.deepEqual((await updated({ $pull: { tags: { $in: ['x2'] } } })).tags, ['x'])
    assert.deepEqual((await updated({ $pull: { sizes: { n: { $gte: 2 } } } })).sizes, [{ size: 'S', n: 1 }])
    assert.deepEqual((await updated({ $pullAll: { tags: ['x'] } })).tags, [])
  })

  it('a $pull condition goes through the filter grammar', async () => {
    const res = await refused({ $pull: { sizes: { $where: 'true' } } })
    assert.equal(res.status, 400)
    assert.match(res.body.error, /operator \$where is not allowed/)
    assert.match((await refused({ $pull: { tags: { $regex: '^x' } } })).body.error, /\$regex is not supported in a \$pull condition/)
  })

  it('$rename and $currentDate', async () => {
    const before = Date.now()
    const doc = await updated({ $rename: { price: 'qty' }, $currentDate: { when: true } })
    assert.equal(doc.qty, 2)
    assert.equal(doc.price, undefined)
    assert.ok(Date.parse(doc.when) >= before - 1000)
  })

  it('an operator outside the list is 400 naming it', async () => {
    for (const operator of ['$bit', '$where', '$function', '$expr']) {
      const res = await refused({ [operator]: { qty: 1 } })
      assert.equal(res.status, 400)
      assert.equal(res.body.error, `update: operator ${operator} is not supported (supported: $set, $unset, $inc, $mul, $min, $max, $push, $addToSet, $pull, $pullAll, $pop, $setOnInsert, $currentDate, $rename)`)
    }
  })

  it('a replacement document, a pipeline, a positional path, _id and conflicting paths are 400', async () => {
    assert.match((await refused({ name: 'b' })).body.error, /no update operator/)
    assert.match((await refused([{ $set: { qty: 1 } }])).body.error, /aggregation pipeline is not supported/)
    assert.match((await refused({ $set: { 'sizes.$.n': 1 } })).body.error, /positional operators/)
    assert.match((await refused({ $set: { _id: 'x' } })).body.error, /immutable field '_id'/)
    assert.match((await refused({ $set: { qty: 1 }, $inc: { qty: 1 } })).body.error, /would create a conflict at 'qty'/)
    assert.match((await refused({ $inc: { name: 1 } })).body.error, /cannot apply \$inc to a value of non-numeric type/)
  })

  it('a hidden field and an unknown field are refused in the same words', async () => {
    const hidden = await refused({ $set: { secret: 'x' } })
    const unknown = await refused({ $set: { nosuch: 'x' } })
    assert.equal(hidden.status, 400)
    assert.equal(hidden.body.error.replace('secret', 'X'), unknown.body.error.replace('nosuch', 'X'))
    assert.equal((await refused({ $rename: { name: 'secret' } })).status, 400)
  })

  it("a result the model refuses is 422 SchemaValidationFailedWrite, and nothing is stored", async () => {
    const res = await refused({ $set: { qty: -1 } })
    assert.equal(res.status, 422)
    assert.equal(res.body.error_code, 'SchemaValidationFailedWrite')
    assert.match(res.body.error, /document\.qty/)
    const unsetRequired = await refused({ $unset: { name: '' } })
    assert.equal(unsetRequired.status, 422)
    assert.equal((await t.call('findOne', { ...ns(), filter: {} })).body.document.qty, 5)
  })

  it('updateMany is all or nothing: one result the model refuses leaves every document as it was', async () => {
    await t.call('insertMany', { ...ns(), documents: [{ name: 'b', qty: 9 }, { name: 'c', qty: 1 }] })
    const res = await t.call('updateMany', { ...ns(), filter: {}, update: { $inc: { qty: -3 } } })
    assert.equal(res.status, 422, JSON.stringify(res.body))
    const quantities = (await t.call('find', { ...ns(), filter: {}, sort: { name: 1 } })).body.documents.map((doc: Json) => doc.qty)
    assert.deepEqual(quantities, [5, 9, 1])
  })

  it('insertMany is all or nothing: one document the model refuses, and none is stored', async () => {
    const res = await t.call('insertMany', { ...ns(), documents: [{ name: 'ok' }, { qty: 1 }] })
    assert.equal(res.status, 422)
    assert.equal(res.body.error_code, 'SchemaValidationFailedWrite')
    assert.deepEqual((await t.call('find', { ...ns(), filter: { name: 'ok' } })).body.documents, [])
  })

  it('a duplicate _id is 409 MongoDBError', async () => {
    const id = (await t.call('findOne', { ...ns(), filter: {} })).body.document._id
    const res = await t.call('insertOne', { ...ns(), document: { _id: { $oid: id }, name: 'dup' } })
    assert.equal(res.status, 409)
    assert.equal(res.body.error_code, 'MongoDBError')
  })
})
