import assert from 'node:assert/strict'
import { after, before, beforeEach, it } from 'node:test'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp, ns } from './data-api-harness.ts'

const OID = /^[0-9a-f]{24}$/

describeEachStore('Data API actions', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode)
  })
  after(() => t.close())
  beforeEach(async () => {
    await t.call('deleteMany', { ...ns(), filter: {} })
  })

  const seed = async (...docs: Json[]) => (await t.call('insertMany', { ...ns(), documents: docs })).body.insertedIds as string[]
  const names = (docs: Json[]) => docs.map((doc) => doc.name)

  it('insertOne answers 201 { insertedId } with the id as its hex text, and the document is stored as POST stores it', async () => {
    const res = await t.call('insertOne', { ...ns(), document: { name: 'pen', qty: 3 } })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body), ['insertedId'])
    assert.match(res.body.insertedId, OID)
    const read = await t.app.inject({ method: 'GET', url: `/items/${res.body.insertedId}` })
    assert.deepEqual(read.json(), { id: res.body.insertedId, name: 'pen', qty: 3 })
  })

  it('insertOne takes the document\'s _id', async () => {
    const res = await t.call('insertOne', { ...ns(), document: { _id: { $oid: '650000000000000000000abc' }, name: 'given' } })
    assert.equal(res.status, 201)
    assert.equal(res.body.insertedId, '650000000000000000000abc')
  })

  it('insertMany answers 201 { insertedIds } in order', async () => {
    const res = await t.call('insertMany', { ...ns(), documents: [{ name: 'a' }, { name: 'b' }] })
    assert.equal(res.status, 201)
    assert.equal(res.body.insertedIds.length, 2)
    for (const id of res.body.insertedIds) assert.match(id, OID)
    const found = await t.call('find', { ...ns(), filter: {}, sort: { name: 1 } })
    assert.deepEqual(found.body.documents.map((doc: Json) => doc._id), res.body.insertedIds)
  })

  it('findOne answers { document } with _id, and { document: null } when nothing matches', async () => {
    const [id] = await seed({ name: 'a', qty: 1 })
    const found = await t.call('findOne', { ...ns(), filter: { name: 'a' } })
    assert.equal(found.status, 200)
    assert.deepEqual(found.body, { document: { _id: id, name: 'a', qty: 1 } })
    const none = await t.call('findOne', { ...ns(), filter: { name: 'zzz' } })
    assert.deepEqual(none.body, { document: null })
  })

  it('findOne takes a sort: the first document in its order', async () => {
    await seed({ name: 'a', qty: 2 }, { name: 'b', qty: 9 }, { name: 'c', qty: 5 })
    const found = await t.call('findOne', { ...ns(), filter: {}, sort: { qty: -1 }, projection: { _id: 0, name: 1 } })
    assert.deepEqual(found.body, { document: { name: 'b' } })
  })

  it('find answers { documents } with filter, sort (several keys), skip, limit and projection', async () => {
    await seed({ name: 'a', qty: 2, price: 1 }, { name: 'b', qty: 1, price: 2 }, { name: 'c', qty: 2, price: 3 }, { name: 'd', qty: 3, price: 4 })
    const res = await t.call('find', { ...ns(), filter: { qty: { $gte: 2 } }, sort: { qty: -1, name: -1 }, skip: 1, limit: 2, projection: { name: 1, _id: 0 } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { documents: [{ name: 'c' }, { name: 'a' }] })
    const excluded = await t.call('find', { ...ns(), filter: { name: 'a' }, projection: { price: 0, _id: 0 } })
    assert.deepEqual(excluded.body.documents, [{ name: 'a', qty: 2 }])
  })

  it("find answers at most 1000 documents by default, and takes a limit of 50,000 at most", async () => {
    await seed(...Array.from({ length: 1005 }, (_, index) => ({ name: `n${String(index).padStart(4, '0')}` })))
    const all = await t.call('find', { ...ns(), filter: {} })
    assert.equal(all.body.documents.length, 1000)
    const page = await t.call('find', { ...ns(), filter: {}, limit: 50_000 })
    assert.equal(page.body.documents.length, 1005)
    const over = await t.call('find', { ...ns(), filter: {}, limit: 50_001 })
    assert.equal(over.status, 400)
    assert.deepEqual(over.body, { error: "'limit' must be at most 50000", error_code: 'InvalidParameter' })
  })

  it('updateOne answers { matchedCount, modifiedCount } and changes the first match only', async () => {
    await seed({ name: 'a', qty: 1 }, { name: 'a', qty: 1 })
    const res = await t.call('updateOne', { ...ns(), filter: { name: 'a' }, update: { $inc: { qty: 5 } } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { matchedCount: 1, modifiedCount: 1 })
    const found = await t.call('find', { ...ns(), filter: {}, sort: { qty: 1 } })
    assert.deepEqual(found.body.documents.map((doc: Json) => doc.qty), [1, 6])
  })

  it('updateOne that changes nothing is matched, not modified; one that matches nothing is neither', async () => {
    await seed({ name: 'a', qty: 1 })
    assert.deepEqual((await t.call('updateOne', { ...ns(), filter: { name: 'a' }, update: { $set: { qty: 1 } } })).body, { matchedCount: 1, modifiedCount: 0 })
    assert.deepEqual((await t.call('updateOne', { ...ns(), filter: { name: 'x' }, update: { $set: { qty: 1 } } })).body, { matchedCount: 0, modifiedCount: 0 })
  })

  it('updateOne with upsert inserts the document the filter and the update make, and answers upsertedId', async () => {
    const res = await t.call('updateOne', { ...ns(), filter: { name: 'new' }, update: { $set: { qty: 4 }, $setOnInsert: { tags: ['fresh'] } }, upsert: true })
    assert.equal(res.status, 200)
    assert.equal(res.body.matchedCount, 0)
    assert.equal(res.body.modifiedCount, 0)
    assert.match(res.body.upsertedId, OID)
    const found = await t.call('findOne', { ...ns(), filter: { _id: { $oid: res.body.upsertedId } }, projection: { _id: 0 } })
    assert.deepEqual(found.body.document, { name: 'new', qty: 4, tags: ['fresh'] })
    // Matched the second time: $setOnInsert applies to inserts only.
    const again = await t.call('updateOne', { ...ns(), filter: { name: 'new' }, update: { $set: { qty: 5 }, $setOnInsert: { tags: ['again'] } }, upsert: true })
    assert.deepEqual(again.body, { matchedCount: 1, modifiedCount: 1 })
    assert.deepEqual((await t.call('findOne', { ...ns(), filter: { name: 'new' }, projection: { _id: 0 } })).body.document, { name: 'new', qty: 5, tags: ['fresh'] })
  })

  it('updateMany changes every match', async () => {
    await seed({ name: 'a', qty: 1 }, { name: 'b', qty: 1 }, { name: 'c', qty: 9 })
    const res = await t.call('updateMany', { ...ns(), filter: { qty: 1 }, update: { $set: { tags: ['x'] } } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { matchedCount: 2, modifiedCount: 2 })
    const tagged = await t.call('find', { ...ns(), filter: { tags: 'x' }, sort: { name: 1 } })
    assert.deepEqual(names(tagged.body.documents), ['a', 'b'])
  })

  it('replaceOne replaces the whole document, keeping its _id', async () => {
    const [id] = await seed({ name: 'a', qty: 1, tags: ['t'] })
    const res = await t.call('replaceOne', { ...ns(), filter: { _id: { $oid: id } }, replacement: { name: 'b', price: 2 } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { matchedCount: 1, modifiedCount: 1 })
    assert.deepEqual((await t.call('findOne', { ...ns(), filter: {} })).body.document, { _id: id, name: 'b', price: 2 })
    const other = await t.call('replaceOne', { ...ns(), filter: { _id: { $oid: id } }, replacement: { _id: { $oid: '650000000000000000000001' }, name: 'c' } })
    assert.equal(other.status, 400)
    assert.equal(other.body.error_code, 'InvalidParameter')
  })

  it('replaceOne with upsert inserts the replacement when nothing matches', async () => {
    const res = await t.call('replaceOne', { ...ns(), filter: { name: 'none' }, replacement: { name: 'made' }, upsert: true })
    assert.equal(res.status, 200)
    assert.match(res.body.upsertedId, OID)
    assert.deepEqual(res.body.matchedCount, 0)
  })

  it('deleteOne deletes the first match and answers { deletedCount }', async () => {
    await seed({ name: 'a' }, { name: 'a' })
    const deleted = await t.call('deleteOne', { ...ns(), filter: { name: 'a' } })
    assert.equal(deleted.status, 200)
    assert.deepEqual(deleted.body, { deletedCount: 1 })
    assert.deepEqual((await t.call('deleteOne', { ...ns(), filter: { name: 'x' } })).body, { deletedCount: 0 })
    assert.equal((await t.call('find', { ...ns(), filter: {} })).body.documents.length, 1)
  })

  it('deleteMany deletes every match and answers { deletedCount }', async () => {
    await seed({ name: 'a', qty: 1 }, { name: 'b', qty: 1 }, { name: 'c', qty: 2 })
    const deleted = await t.call('deleteMany', { ...ns(), filter: { qty: 1 } })
    assert.equal(deleted.status, 200)
    assert.deepEqual(deleted.body, { deletedCount: 2 })
    assert.deepEqual(names((await t.call('find', { ...ns(), filter: {} })).body.documents), ['c'])
  })

  it('aggregate runs $match, $group, $sort, $project, $unwind, $count, $skip and $limit and answers { documents }', async () => {
    await seed({ name: 'a', qty: 2, tags: ['x', 'y'] }, { name: 'b', qty: 3, tags: ['x'] }, { name: 'c', qty: 5, tags: ['z'] })
    const grouped = await t.call('aggregate', {
      ...ns(),
      pipeline: [{ $match: { qty: { $lt: 5 } } }, { $unwind: '$tags' }, { $group: { _id: '$tags', total: { $sum: '$qty' }, names: { $push: '$name' } } }, { $sort: { _id: 1 } }],
    })
    assert.equal(grouped.status, 200)
    assert.deepEqual(grouped.body, { documents: [{ _id: 'x', total: 5, names: ['a', 'b'] }, { _id: 'y', total: 2, names: ['a'] }] })
    const projected = await t.call('aggregate', { ...ns(), pipeline: [{ $sort: { qty: -1 } }, { $skip: 1 }, { $limit: 1 }, { $project: { _id: 0, label: '$name', qty: 1 } }] })
    assert.deepEqual(projected.body.documents, [{ qty: 3, label: 'b' }])
    const counted = await t.call('aggregate', { ...ns(), pipeline: [{ $match: { tags: 'x' } }, { $count: 'n' }] })
    assert.deepEqual(counted.body.documents, [{ n: 2 }])
  })

  it('aggregate takes the accumulators $sum, $avg, $min, $max, $first, $last, $push, $addToSet and $count', async () => {
    await seed({ name: 'a', qty: 2, tags: ['x'] }, { name: 'b', qty: 4, tags: ['x'] }, { name: 'c', qty: 6, tags: ['y'] })
    const res = await t.call('aggregate', {
      ...ns(),
      pipeline: [
        { $sort: { name: 1 } },
        {
          $group: {
            _id: null,
            sum: { $sum: '$qty' },
            avg: { $avg: '$qty' },
            min: { $min: '$qty' },
            max: { $max: '$qty' },
            first: { $first: '$name' },
            last: { $last: '$name' },
            all: { $push: '$name' },
            distinct: { $addToSet: '$tags' },
            count: { $count: {} },
            ones: { $sum: 1 },
          },
        },
        { $project: { _id: 0, sum: 1, avg: 1, min: 1, max: 1, first: 1, last: 1, all: 1, count: 1, ones: 1 } },
      ],
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body.documents, [{ sum: 12, avg: 4, min: 2, max: 6, first: 'a', last: 'c', all: ['a', 'b', 'c'], count: 3, ones: 3 }])
  })

  it('aggregate $lookup joins another served collection', async () => {
    const [id] = await seed({ name: 'a' })
    await t.call('insertMany', { ...ns('reviews'), documents: [{ itemId: { $oid: id }, stars: 4, internal: 'x' }, { itemId: { $oid: id }, stars: 2 }] })
    const res = await t.call('aggregate', {
      ...ns(),
      pipeline: [{ $lookup: { from: 'reviews', localField: '_id', foreignField: 'itemId', as: 'reviews' } }, { $project: { _id: 0, name: 1, 'reviews.stars': 1 } }],
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body.documents, [{ name: 'a', reviews: [{ stars: 4 }, { stars: 2 }] }])
  })

  it('an unknown action is 404 in the Data API error format', async () => {
    const res = await t.call('findAndModify', { ...ns() })
    assert.equal(res.status, 404)
    assert.equal(res.body.error_code, 'FunctionNotFound')
    assert.match(res.body.error, /findAndModify/)
  })

  it('dataSource defaults to mongodb-atlas, database is the served one: another is 400', async () => {
    const { dataSource: _, ...withoutSource } = ns()
    assert.equal((await t.call('find', { ...withoutSource, filter: {} })).status, 200)
    const other = await t.call('find', { ...ns(), dataSource: 'Cluster0', filter: {} })
    assert.deepEqual(other.body, { error: `no data source "Cluster0": this endpoint serves 'mongodb-atlas'`, error_code: 'InvalidParameter' })
    const db = await t.call('find', { ...ns(), database: 'other', filter: {} })
    assert.deepEqual(db.body, { error: "no rule exists for namespace 'other.items'", error_code: 'InvalidParameter' })
  })

  it('a body that is not an object, and a missing collection, are 400', async () => {
    assert.equal((await t.call('find', '[]')).status, 400)
    assert.deepEqual((await t.call('find', { dataSource: 'mongodb-atlas', database: 'test' })).body, { error: "'collection' is required by find", error_code: 'MissingParameter' })
    assert.deepEqual((await t.call('insertOne', { ...ns() })).body, { error: "'document' is required by insertOne", error_code: 'MissingParameter' })
  })

  it('a key no action reads is 400 with the key meant; a key another action reads is ignored', async () => {
    const res = await t.call('find', { ...ns(), filters: { name: 'a' } })
    assert.equal(res.status, 400)
    assert.match(res.body.error, /unknown key 'filters'.*did you mean 'filter'\?/)
    assert.equal((await t.call('findOne', { ...ns(), filter: {}, limit: 5 })).status, 200)
  })

  it('reads any Content-Type as JSON (curl -d sends form encoding), and an empty or broken body is 400', async () => {
    await seed({ name: 'a' })
    const form = await t.call('find', { ...ns(), filter: {} }, { apiKey: 'data-api-test-key-0123456789abcdef', 'content-type': 'application/x-www-form-urlencoded' })
    assert.equal(form.status, 200)
    assert.equal(form.body.documents.length, 1)
    const broken = await t.call('find', '{"database":', undefined)
    assert.equal(broken.status, 400)
    assert.match(broken.body.error, /not valid Extended JSON/)
  })
})
