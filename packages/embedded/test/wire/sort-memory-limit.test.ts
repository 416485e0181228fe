import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { MongoClient, MongoServerError } from 'mongodb'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '../../src/index.ts'

/** Through the official driver, a sort past the engine's memory limit fails as on a server: code 292. */

let engine: EmbeddedDb
let server: WireServer
let client: MongoClient
before(async () => {
  engine = await openEmbedded({ sortMemoryLimitBytes: 10_000 })
  server = await startWireServer(engine)
  client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 60_000 })
  await client.connect()
  await client.db('test').collection<{ _id: number, n: number, pad: string }>('items').insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i, n: -i, pad: 'x'.repeat(200) })))
})
after(async () => {
  await client.close()
  await server.close()
  await engine.close()
})

it('answers an unbounded sort past the limit with QueryExceededMemoryLimitNoDiskUseAllowed', async () => {
  await assert.rejects(client.db('test').collection('items').find({}).sort({ n: 1 }).toArray(), (error: unknown) => {
    assert.ok(error instanceof MongoServerError, String(error))
    assert.equal(error.code, 292)
    assert.equal(error.codeName, 'QueryExceededMemoryLimitNoDiskUseAllowed')
    assert.match(error.message, /^Sort exceeded memory limit of 10000 bytes, but did not opt in to external sorting\.$/)
    return true
  })
})

it('still answers a sorted page: only its top is held', async () => {
  const page = await client.db('test').collection('items').find({}).sort({ n: 1 }).limit(3).toArray()
  assert.deepEqual(page.map((doc) => doc['_id']), [99, 98, 97])
})

it('answers an aggregate $sort past the limit with code 292, allowDiskUse or not', async () => {
  for (const options of [{}, { allowDiskUse: true }]) {
    await assert.rejects(client.db('test').collection('items').aggregate([{ $sort: { n: 1 } }], options).toArray(), (error: unknown) => {
      assert.ok(error instanceof MongoServerError, String(error))
      assert.equal(error.code, 292)
      assert.equal(error.codeName, 'QueryExceededMemoryLimitNoDiskUseAllowed')
      assert.match(error.message, /^Sort exceeded memory limit of 10000 bytes/)
      if ('allowDiskUse' in options) assert.match(error.message, /allowDiskUse does not lift the limit\.$/)
      return true
    })
  }
  const page = await client.db('test').collection('items').aggregate([{ $sort: { n: 1 } }, { $limit: 3 }]).toArray()
  assert.deepEqual(page.map((doc) => doc['_id']), [99, 98, 97])
})
