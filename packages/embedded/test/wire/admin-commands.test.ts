import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { BSON, type Document, type Long, MongoServerError } from 'mongodb'
import { collectionSizes } from '../../src/collection/collection-sizes.ts'
import { EmbeddedCollection } from '../../src/index.ts'
import { useWireServer } from './wire-harness.ts'

interface Person {
  _id: number
  name: string
  age: number
  city: string
}

const CITIES = ['Oslo', 'Lima', 'Pune']
const PEOPLE: Person[] = Array.from({ length: 60 }, (_, i) => ({ _id: i, name: `p${String(i).padStart(2, '0')}`, age: 20 + (i % 40), city: CITIES[i % 3]! }))
const bsonSize = (doc: Document) => BSON.calculateObjectSize(doc)

/** The stages of a plan, root first, by their `stage` names. */
function stages(plan: Document): string[] {
  const out: string[] = []
  for (let stage: Document | undefined = plan; stage !== undefined; stage = stage['inputStage'] as Document | undefined) out.push(stage['stage'] as string)
  return out
}

function stage(plan: Document, name: string): Document {
  for (let at: Document | undefined = plan; at !== undefined; at = at['inputStage'] as Document | undefined) if (at['stage'] === name) return at
  throw new Error(`no ${name} stage in ${JSON.stringify(plan)}`)
}

describe('admin commands: statistics', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('statsdb')

  before(async () => {
    await db().collection<Person>('people').insertMany(PEOPLE)
    await db().collection('people').createIndex({ age: 1 })
    await db().collection('empty').createIndex({ x: 1 })
    await db().createCollection('adults', { viewOn: 'people', pipeline: [{ $match: { age: { $gte: 18 } } }] })
  })

  it('collStats: the count, the documents\' BSON size, each index\'s size, divided by scale', async () => {
    const stats = await db().command({ collStats: 'people' })
    const size = PEOPLE.reduce((total, doc) => total + bsonSize(doc), 0)
    assert.equal(stats['ns'], 'statsdb.people')
    assert.equal(stats['count'], 60)
    assert.equal(stats['size'], size)
    assert.equal(stats['storageSize'], size)
    assert.equal(stats['avgObjSize'], Math.floor(size / 60))
    assert.equal(stats['nindexes'], 2)
    assert.deepEqual(Object.keys(stats['indexSizes']).sort(), ['_id_', 'age_1'])
    assert.ok(stats['indexSizes']['age_1'] > 0)
    assert.equal(stats['totalIndexSize'], stats['indexSizes']['_id_'] + stats['indexSizes']['age_1'])
    assert.equal(stats['totalSize'], size + stats['totalIndexSize'])
    const kib = await db().command({ collStats: 'people', scale: 1024 })
    assert.equal(kib['size'], Math.floor(size / 1024))
    assert.equal(kib['scaleFactor'], 1024)
    await assert.rejects(db().command({ collStats: 'adults' }), { code: 166 })
  })

  it('$collStats: one document (storageStats, count) that later stages reshape', async () => {
    const [stats] = await db().collection('people').aggregate([{ $collStats: { storageStats: {}, count: {} } }]).toArray()
    assert.equal(stats!['ns'], 'statsdb.people')
    assert.equal(stats!['count'], 60)
    assert.equal(stats!['storageStats']['count'], 60)
    assert.ok(stats!['localTime'] instanceof Date)
    const projected = await db().collection('people').aggregate([{ $collStats: { storageStats: {} } }, { $project: { _id: 0, n: '$storageStats.count', indexes: '$storageStats.nindexes' } }]).toArray()
    assert.deepEqual(projected, [{ n: 60, indexes: 2 }])
    await assert.rejects(db().collection('people').aggregate([{ $collStats: { latencyStats: {} } }]).toArray(), { code: 2, message: /latencyStats is not supported/ })
    await assert.rejects(db().collection('people').aggregate([{ $match: {} }, { $collStats: {} }]).toArray(), { code: 2 })
  })

  it('measures a collection once, and again only after it changed', async () => {
    const core = EmbeddedCollection.coreOf(wire().engine.db('statsdb').collection('people'))
    const first = await collectionSizes(core)
    assert.equal(await collectionSizes(core), first)
    await db().collection<Person>('people').updateOne({ _id: 0 }, { $set: { touched: true } })
    const after = await collectionSizes(core)
    assert.notEqual(after, first)
    assert.equal(after.size, first.size + bsonSize({ touched: true }) - 5)
    await db().collection<Person>('people').updateOne({ _id: 0 }, { $unset: { touched: '' } })
  })

  it('dbStats: collections, views, objects and sizes of the database', async () => {
    const stats = await db().command({ dbStats: 1 })
    const people = await db().command({ collStats: 'people' })
    const empty = await db().command({ collStats: 'empty' })
    // people, empty, and system.views (which holds the view).
    assert.equal(stats['collections'], 3)
    assert.equal(stats['views'], 1)
    assert.ok(stats['objects'] >= 61)
    assert.equal(stats['indexes'], 5)
    assert.equal(stats['dataSize'], stats['storageSize'])
    assert.equal(stats['totalSize'], stats['dataSize'] + stats['indexSize'])
    assert.ok(stats['indexSize'] >= people['totalIndexSize'] + empty['totalIndexSize'])
  })

  it('listDatabases: each database\'s size (its dbStats totalSize), a filter, names only', async () => {
    const listed = await wire().client.db('admin').command({ listDatabases: 1, filter: { name: 'statsdb' } })
    const { totalSize } = await db().command({ dbStats: 1 })
    assert.deepEqual(listed['databases'], [{ name: 'statsdb', sizeOnDisk: totalSize, empty: false }])
    assert.equal(listed['totalSize'], totalSize)
    const names = await wire().client.db('admin').command({ listDatabases: 1, nameOnly: true })
    assert.ok((names['databases'] as Document[]).some((d) => d['name'] === 'statsdb' && Object.keys(d).length === 1))
  })

  it('serverStatus: uptime, connections, opcounters, network', async () => {
    const before = await wire().client.db('admin').command({ serverStatus: 1 })
    await db().collection('counted').insertMany([{ a: 1 }, { a: 2 }, { a: 3 }])
    await db().collection('counted').find({}).toArray()
    await db().collection('counted').updateOne({ a: 1 }, { $set: { b: 1 } })
    await db().collection('counted').deleteOne({ a: 2 })
    const after = await wire().client.db('admin').command({ serverStatus: 1 })
    const delta = (field: string) => after['opcounters'][field] - before['opcounters'][field]
    assert.deepEqual([delta('insert'), delta('query'), delta('update'), delta('delete')], [3, 1, 1, 1])
    assert.equal(after['version'], '7.0.0')
    assert.ok(after['connections']['current'] >= 1)
    assert.ok(after['network']['bytesIn'] > before['network']['bytesIn'])
    assert.ok(after['uptimeMillis'] >= before['uptimeMillis'])
    assert.equal(after['security']['authorization'], 'disabled')
  })
})

describe('admin commands: explain', () => {
  const wire = useWireServer()
  const people = () => wire().client.db('plans').collection<Person>('people')

  before(async () => {
    await people().insertMany(PEOPLE)
    await people().createIndex({ age: 1 })
    await people().createIndex({ city: 1, age: 1 })
    await wire().client.db('plans').createCollection('lima', { viewOn: 'people', pipeline: [{ $match: { city: 'Lima' } }] })
  })

  it('names COLLSCAN when no index serves, and counts every document examined', async () => {
    const explained = await people().find({ name: 'p07' }).explain('executionStats')
    assert.deepEqual(stages(explained['queryPlanner']['winningPlan']), ['COLLSCAN'])
    assert.equal(explained['queryPlanner']['namespace'], 'plans.people')
    assert.deepEqual(explained['queryPlanner']['rejectedPlans'], [])
    const stats = explained['executionStats']
    assert.deepEqual([stats['nReturned'], stats['totalDocsExamined'], stats['totalKeysExamined']], [1, 60, 0])
    assert.equal(stats['executionStages']['docsExamined'], 60)
  })

  it('names the index the planner chose (FETCH over IXSCAN), and examines only what it finds', async () => {
    const explained = await people().find({ age: { $gte: 55 } }).explain('executionStats')
    const scan = stage(explained['queryPlanner']['winningPlan'], 'IXSCAN')
    assert.deepEqual([scan['indexName'], scan['keyPattern'], scan['direction']], ['age_1', { age: 1 }, 'forward'])
    assert.deepEqual(stages(explained['queryPlanner']['winningPlan']), ['FETCH', 'IXSCAN'])
    const matching = PEOPLE.filter((p) => p.age >= 55).length
    const stats = explained['executionStats']
    assert.deepEqual([stats['nReturned'], stats['totalKeysExamined'], stats['totalDocsExamined']], [matching, matching, matching])
  })

  it('shows IDHACK for one _id, SORT when no index gives the order, none when one does (walked backwards)', async () => {
    const byId = await people().find({ _id: 7 }).explain('executionStats')
    assert.deepEqual(stages(byId['queryPlanner']['winningPlan']), ['IDHACK'])
    assert.equal(byId['executionStats']['totalDocsExamined'], 1)

    const sorted = await people().find({}).sort({ name: 1 }).skip(2).limit(5).explain('queryPlanner')
    assert.deepEqual(stages(sorted['queryPlanner']['winningPlan']), ['LIMIT', 'SKIP', 'SORT', 'COLLSCAN'])
    assert.deepEqual(stage(sorted['queryPlanner']['winningPlan'], 'SORT')['sortPattern'], { name: 1 })
    assert.equal(stage(sorted['queryPlanner']['winningPlan'], 'SORT')['limitAmount'], 7)

    const served = await people().find({ city: 'Lima' }).sort({ age: -1 }).project({ _id: 0, age: 1 }).explain('queryPlanner')
    assert.deepEqual(stages(served['queryPlanner']['winningPlan']), ['PROJECTION_DEFAULT', 'FETCH', 'IXSCAN'])
    const scan = stage(served['queryPlanner']['winningPlan'], 'IXSCAN')
    assert.deepEqual([scan['indexName'], scan['direction']], ['city_1_age_1', 'backward'])
  })

  it('explains count, distinct, and a write without writing', async () => {
    const count = await wire().client.db('plans').command({ explain: { count: 'people', query: { age: { $lt: 25 } } }, verbosity: 'executionStats' })
    assert.deepEqual(stages(count['queryPlanner']['winningPlan']), ['COUNT', 'FETCH', 'IXSCAN'])
    assert.equal(count['executionStats']['executionStages']['nCounted'], PEOPLE.filter((p) => p.age < 25).length)
    const distinct = await wire().client.db('plans').command({ explain: { distinct: 'people', key: 'city', query: {} }, verbosity: 'executionStats' })
    assert.deepEqual(stages(distinct['queryPlanner']['winningPlan']), ['PROJECTION_DEFAULT', 'COLLSCAN'])
    const removal = await wire().client.db('plans').command({ explain: { delete: 'people', deletes: [{ q: { city: 'Oslo' }, limit: 0 }] }, verbosity: 'executionStats' })
    assert.deepEqual(stages(removal['queryPlanner']['winningPlan']), ['DELETE', 'FETCH', 'IXSCAN'])
    assert.equal(removal['executionStats']['executionStages']['nWouldDelete'], 20)
    assert.equal(await people().countDocuments({ city: 'Oslo' }), 20)
    await assert.rejects(wire().client.db('plans').command({ explain: { delete: 'people', deletes: [{ q: {}, limit: 0 }, { q: {}, limit: 0 }] } }), { code: 2 })
  })

  it('explains an aggregation: its read as a $cursor stage (the planner\'s index), then its other stages', async () => {
    const pipeline = [{ $match: { age: { $gte: 50 } } }, { $group: { _id: '$city', n: { $sum: 1 } } }]
    const explained = await people().aggregate(pipeline).explain('executionStats')
    const [cursor, group] = explained['stages'] as Document[]
    assert.equal(stage(cursor!['$cursor']['queryPlanner']['winningPlan'], 'IXSCAN')['indexName'], 'age_1')
    const matching = PEOPLE.filter((p) => p.age >= 50).length
    assert.equal(cursor!['$cursor']['executionStats']['totalDocsExamined'], matching)
    // nReturned: what the pipeline returned (one group per city), not the read's matches.
    assert.equal(cursor!['$cursor']['executionStats']['nReturned'], 3)
    assert.deepEqual(group, { $group: { _id: '$city', n: { $sum: 1 } } })
    // A pipeline that is its read alone: the find's form.
    const alone = await people().aggregate([{ $match: { age: 30 } }]).explain('queryPlanner')
    assert.equal(stage(alone['queryPlanner']['winningPlan'], 'IXSCAN')['indexName'], 'age_1')
    // A find on a view: the view's aggregation, over the collection it reads (the engine plans the view's own $match).
    const view = await wire().client.db('plans').collection('lima').find({ age: 30 }).explain('queryPlanner')
    const [viewRead, findMatch] = view['stages'] as Document[]
    assert.equal(viewRead!['$cursor']['queryPlanner']['namespace'], 'plans.people')
    assert.deepEqual(viewRead!['$cursor']['queryPlanner']['parsedQuery'], { city: 'Lima' })
    assert.deepEqual(findMatch, { $match: { age: 30 } })
  })

  it('counts the documents of its own read only, whatever other reads run meanwhile', async () => {
    const [explained] = await Promise.all([people().find({ name: { $gte: '' } }).explain('executionStats'), ...Array.from({ length: 4 }, () => people().find({}).toArray())])
    assert.equal(explained['executionStats']['totalDocsExamined'], 60)
  })

  it('answers the old form, aggregate with explain: true, with the plan', async () => {
    const explained = await wire().client.db('plans').command({ aggregate: 'people', pipeline: [{ $match: { age: 30 } }], explain: true })
    assert.equal(stage(explained['queryPlanner']['winningPlan'], 'IXSCAN')['indexName'], 'age_1')
    assert.equal(explained['executionStats'], undefined)
  })
})

describe('admin commands: currentOp and killOp', () => {
  const wire = useWireServer()

  it('lists a running command, and killOp interrupts it (11601 Interrupted)', async () => {
    const db = wire().client.db('ops')
    await db.collection<{ _id: number }>('feed').insertOne({ _id: 0 })
    const opened = await db.command({ aggregate: 'feed', pipeline: [{ $changeStream: {} }], cursor: {} })
    const id = (opened['cursor'] as Document)['id'] as Long
    const waiting = db.command({ getMore: id, collection: 'feed', maxTimeMS: 30_000 }).then(
      () => undefined,
      (error: unknown) => error
    )
    let op: Document | undefined
    for (let tries = 0; op === undefined && tries < 100; tries++) {
      const { inprog } = await wire().client.db('admin').command({ currentOp: 1, op: 'getmore' })
      op = (inprog as Document[])[0]
      if (op === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.ok(op, 'the getMore is listed')
    assert.deepEqual([op['ns'], op['active'], op['op'], typeof op['opid'], typeof op['microsecs_running']], ['ops.feed', true, 'getmore', 'number', 'number'])
    const viaStage = await wire().client.db('admin').aggregate([{ $currentOp: { allUsers: true } }, { $match: { opid: op['opid'] } }]).toArray()
    assert.equal(viaStage.length, 1)
    assert.deepEqual(await wire().client.db('admin').command({ killOp: 1, op: op['opid'] }), { info: 'attempting to kill op', ok: 1 })
    const error = await waiting
    assert.ok(error instanceof MongoServerError)
    assert.deepEqual([error.code, error.codeName], [11601, 'Interrupted'])
    assert.deepEqual(await wire().client.db('admin').command({ killOp: 1, op: 987654 }), { info: 'attempting to kill op', ok: 1 })
  })

  it('shows idle connections with $all, and no secrets in a listed command', async () => {
    const { inprog } = await wire().client.db('admin').command({ currentOp: 1, $all: true })
    assert.ok((inprog as Document[]).some((op) => op['active'] === false))
    const listing = (inprog as Document[]).find((op) => op['command']?.['currentOp'] === 1)
    assert.equal(listing?.['client'] !== undefined, true)
  })
})
