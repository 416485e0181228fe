import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDPopulate, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { type DataApiTestApp, dataApiApp, KEY, ns } from './data-api-harness.ts'

const Note = MongoModel('DataNote', { title: Type.String(), owner: Type.String() })
const Board = MongoModel('DataBoard', { title: Type.String(), pinned: Type.Optional(ObjectIdField()) })

/** The hidden values seeded: no answer may contain one. */
const SECRETS = ['hidden-item-secret', 'hidden-review-note']

describeEachStore('Data API security', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode, { dataApi: { bodyLimit: 4096 } })
    const item = await t.call('insertOne', { ...ns(), document: { name: 'a', qty: 1, secret: SECRETS[0], tags: ['t'] } })
    await t.call('insertOne', { ...ns('reviews'), document: { itemId: { $oid: item.body.insertedId }, stars: 5, internal: SECRETS[1] } })
  })
  after(() => t.close())

  const leaks = (body: unknown) => SECRETS.some((secret) => JSON.stringify(body).includes(secret))
  const aggregate = (pipeline: Json[], collection = 'items') => t.call('aggregate', { ...ns(collection), pipeline })

  it('a hidden field never comes back: not in find, findOne, aggregate, $lookup, nor $$ROOT', async () => {
    for (const res of [
      await t.call('find', { ...ns(), filter: {} }),
      await t.call('findOne', { ...ns(), filter: {} }),
      await aggregate([{ $match: {} }]),
      await aggregate([{ $group: { _id: null, all: { $push: '$$ROOT' } } }]),
      await aggregate([{ $lookup: { from: 'reviews', localField: '_id', foreignField: 'itemId', as: 'r' } }]),
      await aggregate([{ $group: { _id: '$itemId', all: { $push: '$$ROOT' } } }], 'reviews'),
    ]) {
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(leaks(res.body), false, JSON.stringify(res.body))
    }
  })

  it('a hidden field is unreachable through projection, filter, sort, $group, $unwind, $project, $sort and $lookup, each refused as an unknown field', async () => {
    const attempts: Array<[string, Json]> = [
      ['find', { filter: {}, projection: { secret: 1 } }],
      ['find', { filter: { secret: { $regex: '^h' } } }],
      ['find', { filter: { $or: [{ secret: 'x' }] } }],
      ['find', { filter: {}, sort: { secret: 1 } }],
      ['aggregate', { pipeline: [{ $group: { _id: '$secret' } }] }],
      ['aggregate', { pipeline: [{ $group: { _id: null, s: { $max: '$secret' } } }] }],
      ['aggregate', { pipeline: [{ $unwind: '$secret' }] }],
      ['aggregate', { pipeline: [{ $project: { s: '$secret' } }] }],
      ['aggregate', { pipeline: [{ $match: { secret: 'x' } }] }],
      ['aggregate', { pipeline: [{ $sort: { secret: 1 } }] }],
      ['aggregate', { pipeline: [{ $lookup: { from: 'reviews', localField: 'secret', foreignField: 'itemId', as: 'r' } }] }],
      ['aggregate', { pipeline: [{ $lookup: { from: 'items', localField: 'name', foreignField: 'secret', as: 'r' } }] }],
    ]
    for (const [action, body] of attempts) {
      const res = await t.call(action, { ...ns(), ...body })
      assert.equal(res.status, 400, `${JSON.stringify(body)} answered ${res.status}`)
      assert.match(res.body.error, /secret/)
      assert.equal(leaks(res.body), false)
    }
  })

  it('$where, $function, $expr and other operators outside the grammar are refused, naming them, at any depth', async () => {
    for (const filter of [{ $where: 'true' }, { qty: { $function: {} } }, { $expr: { $eq: ['$qty', 1] } }, { $and: [{ $or: [{ $where: '1' }] }] }, { qty: { $mod: [2, 0] } }]) {
      const res = await t.call('find', { ...ns(), filter })
      assert.equal(res.status, 400, JSON.stringify(filter))
      assert.match(res.body.error, /^filter: operator \$(where|function|expr|mod) is not allowed$/)
    }
    const matched = await aggregate([{ $match: { $expr: { $gt: ['$qty', 0] } } }])
    assert.equal(matched.status, 400)
    assert.match(matched.body.error, /\$expr is not allowed/)
  })

  it('stages outside the list, expressions and the pipeline forms of $lookup are refused', async () => {
    const refusals: Array<[Json, RegExp]> = [
      [{ $out: 'stolen' }, /stage \$out is not supported/],
      [{ $merge: { into: 'x' } }, /stage \$merge is not supported/],
      [{ $addFields: { x: 1 } }, /stage \$addFields is not supported/],
      [{ $group: { _id: null, f: { $accumulator: {} } } }, /accumulator \$accumulator is not supported/],
      [{ $project: { x: { $concat: ['$name', '$name'] } } }, /expressions are not supported/],
      [{ $lookup: { from: 'reviews', pipeline: [], as: 'r' } }, /pipeline is not supported/],
      [{ $lookup: { from: 'system.users', localField: '_id', foreignField: '_id', as: 'r' } }, /no rule exists for namespace/],
      [{ $group: { _id: '$$NOW' } }, /variable \$\$NOW is not supported/],
    ]
    for (const [stage, message] of refusals) {
      const res = await aggregate([stage])
      assert.equal(res.status, 400, JSON.stringify(stage))
      assert.match(res.body.error, message)
    }
  })

  it('a collection no router serves is 400, the same answer as for a database no router serves', async () => {
    const res = await t.call('find', { ...ns('system.users'), filter: {} })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body, { error: "no rule exists for namespace 'test.system.users'", error_code: 'InvalidParameter' })
    assert.equal((await t.call('insertOne', { ...ns('unserved'), document: { a: 1 } })).status, 400)
  })

  it('prototype keys are refused in bodies and filters', async () => {
    const proto = await t.call('insertOne', '{"dataSource":"mongodb-atlas","database":"test","collection":"items","document":{"name":"p","__proto__":{"polluted":true}}}')
    assert.equal(proto.status, 400)
    assert.equal(({} as Json).polluted, undefined)
    const filter = await t.call('find', { ...ns(), filter: { constructor: 'x' } })
    assert.equal(filter.status, 400)
  })

  it('a body larger than the limit is 413 in the Data API error format', async () => {
    const res = await t.call('insertOne', { ...ns(), document: { name: 'x'.repeat(5000) } })
    assert.equal(res.status, 413)
    assert.equal(res.body.error_code, 'BadRequest')
  })

  it('find refuses a limit past 50,000 and aggregate answers at most 50,000 documents', async () => {
    assert.equal((await t.call('find', { ...ns(), filter: {}, limit: 100_000 })).status, 400)
    assert.equal((await t.call('find', { ...ns(), filter: {}, limit: -1 })).status, 400)
    const tags = Array.from({ length: 50_001 }, (_, index) => `t${index}`)
    await t.store.db.collection('items').insertOne({ name: 'many', tags })
    try {
      const res = await aggregate([{ $match: { name: 'many' } }, { $unwind: '$tags' }, { $project: { _id: 0, tags: 1 } }])
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { error: 'the result holds more than 50000 documents: add $limit, or narrow $match', error_code: 'ReadSizeLimitExceeded' })
      const limited = await aggregate([{ $match: { name: 'many' } }, { $unwind: '$tags' }, { $limit: 50_000 }, { $count: 'n' }])
      assert.deepEqual(limited.body.documents, [{ n: 50_000 }])
    } finally {
      await t.store.db.collection('items').deleteMany({ name: 'many' })
    }
  })
})

describeEachStore('Data API: references GET hides', (mode) => {
  let t: DataApiTestApp
  before(async () => {
    t = await dataApiApp(mode, {
      routers: [
        { model: Note, collectionName: 'notes', prefix: '/notes', filterDependency: (request: { headers: Record<string, unknown> }) => ({ owner: String(request.headers['x-user']) }) },
        { model: Board, collectionName: 'boards', prefix: '/boards', populates: [new CRUDPopulate({ field: 'pinned', collection: 'notes', model: Note })] },
      ],
    })
    await t.call('insertOne', { ...ns('boards'), document: { title: 'b', pinned: { $oid: '650000000000000000000001' } } })
  })
  after(() => t.close())

  it('a populated field whose target shows its documents only to some callers is neither answered nor named', async () => {
    const found = await t.call('find', { ...ns('boards'), filter: {} }, { apiKey: KEY, 'x-user': 'alice' })
    assert.deepEqual(Object.keys(found.body.documents[0]).sort(), ['_id', 'title'])
    for (const body of [{ filter: { pinned: { $oid: '650000000000000000000001' } } }, { filter: {}, sort: { pinned: 1 } }, { filter: {}, projection: { pinned: 1 } }]) {
      assert.equal((await t.call('find', { ...ns('boards'), ...body }, { apiKey: KEY, 'x-user': 'alice' })).status, 400, JSON.stringify(body))
    }
    const grouped = await t.call('aggregate', { ...ns('boards'), pipeline: [{ $group: { _id: '$pinned' } }] }, { apiKey: KEY, 'x-user': 'alice' })
    assert.equal(grouped.status, 400)
  })
})
