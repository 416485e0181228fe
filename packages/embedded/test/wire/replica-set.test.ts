import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Binary, type Document, MongoClient, MongoServerError, MongoWriteConcernError, ObjectId, Timestamp } from 'mongodb'
import { openEmbedded, startWireServer } from '../../src/index.ts'
import { opMsg, RawClient, useWireServer } from './wire-harness.ts'

/** OP_MSG flag bits: the client takes several replies; more replies follow this one. */
const EXHAUST_ALLOWED = 1 << 16
const MORE_TO_COME = 1 << 1

/**
 * `replSet`: the wire server presents a single-node replica set, as a mongod started with `--replSet`
 * and initiated: the driver connects with `?replicaSet=` (discovering the set from `hello`) or
 * `?directConnection=true`, and replies carry the cluster time drivers need for causal consistency.
 */
describe('a wire server started with replSet', () => {
  const wire = useWireServer({ replSet: 'rs0' }, { replicaSet: 'rs0' })

  it('answers hello as the primary of its set: setName, hosts, primary, me, topologyVersion, lastWrite', async () => {
    const hello = await wire().client.db('admin').command({ hello: 1 })
    const host = `127.0.0.1:${wire().server.port}`
    assert.equal(hello['setName'], 'rs0')
    assert.deepEqual(hello['hosts'], [host])
    assert.equal(hello['primary'], host)
    assert.equal(hello['me'], host)
    assert.equal(hello['isWritablePrimary'], true)
    assert.equal(hello['secondary'], false)
    assert.ok(hello['topologyVersion']['processId'] instanceof ObjectId)
    assert.ok(hello['lastWrite']['opTime']['ts'] instanceof Timestamp)
    assert.ok(hello['lastWrite']['lastWriteDate'] instanceof Date)
    assert.equal(hello['logicalSessionTimeoutMinutes'], 30)
    const legacy = await wire().client.db('admin').command({ isMaster: 1 })
    assert.equal(legacy['ismaster'], true)
    assert.equal(legacy['setName'], 'rs0')
  })

  it('is a replica set to the driver with ?replicaSet= and a direct connection with ?directConnection=true', async () => {
    const { uri } = wire().server
    for (const [query, topology] of [['?replicaSet=rs0', 'ReplicaSetWithPrimary'], ['?directConnection=true', 'Single']]) {
      const client = new MongoClient(`${uri}${query}`, { serverSelectionTimeoutMS: 60_000 })
      try {
        await client.db('test').collection('reached').insertOne({ via: query })
        const description = (client as unknown as { topology: { description: { type: string } } }).topology.description
        assert.equal(description.type, topology)
      } finally {
        await client.close()
      }
    }
    assert.equal(await wire().client.db('test').collection('reached').countDocuments({}), 2)
  })

  it("puts operationTime and $clusterTime on every reply, the time of the engine's last change, errors included", async () => {
    const admin = wire().client.db('admin')
    const before = await admin.command({ ping: 1 })
    assert.ok(before['operationTime'] instanceof Timestamp)
    assert.ok(before['$clusterTime']['clusterTime'] instanceof Timestamp)
    const written = await wire().client.db('test').command({ insert: 'times', documents: [{ _id: 1 }] })
    assert.ok((written['operationTime'] as Timestamp).greaterThan(before['operationTime']))
    const failed = await wire().client.db('test').command({ nonsense: 1 }).catch((error: unknown) => error)
    assert.ok(failed instanceof MongoServerError)
    assert.deepEqual(failed.errorResponse['operationTime'], written['operationTime'])
  })

  it('sends stored documents as they are in a reply with the cluster time after them (a find of many)', async () => {
    const coll = wire().client.db('test').collection('stored')
    await coll.insertMany(Array.from({ length: 150 }, (_, i) => ({ _id: i, text: `document ${i}` })) as Document[])
    const raw = await RawClient.open(wire().server)
    try {
      const first: Document = await raw.command({ find: 'stored', batchSize: 100 })
      assert.equal(first['cursor']['firstBatch'].length, 100)
      assert.deepEqual(first['cursor']['firstBatch'][7], { _id: 7, text: 'document 7' })
      assert.ok(first['operationTime'] instanceof Timestamp)
      const next: Document = await raw.command({ getMore: first['cursor']['id'], collection: 'stored' })
      assert.deepEqual(next['cursor']['nextBatch'].map((doc: Document) => doc['_id']), Array.from({ length: 50 }, (_, i) => 100 + i))
      assert.ok(next['$clusterTime']['clusterTime'] instanceof Timestamp)
    } finally {
      raw.close()
    }
  })

  it('puts its topologyVersion on a not-primary or shutdown error, which the driver then takes as stale', async () => {
    const admin = wire().client.db('admin')
    const { topologyVersion } = await admin.command({ hello: 1 })
    await admin.command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['ping'], errorCode: 10107 } })
    const error = await admin.command({ ping: 1 }).catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.deepEqual(error.errorResponse['topologyVersion'], topologyVersion)
    assert.equal((await admin.command({ ping: 1 }))['ok'], 1)
  })

  it('gives a causally consistent session the time of its writes', async () => {
    const session = wire().client.startSession({ causalConsistency: true })
    try {
      const coll = wire().client.db('test').collection('causal')
      await coll.insertOne({ _id: 1 } as Document, { session })
      const time = session.operationTime
      assert.ok(time instanceof Timestamp)
      // The read after it asks for what follows the write (afterClusterTime): served, with the write in it.
      assert.deepEqual(await coll.findOne({ _id: 1 } as Document, { session }), { _id: 1 })
    } finally {
      await session.endSession()
    }
  })

  it("streams the hello of the driver's monitor: with exhaustAllowed, a reply every maxAwaitTimeMS, each flagged moreToCome", async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const { topologyVersion } = await raw.command({ hello: 1 })
      raw.send(opMsg({ hello: 1, topologyVersion, maxAwaitTimeMS: 20, $db: 'admin' }, { flags: EXHAUST_ALLOWED }))
      for (let i = 0; i < 2; i++) {
        const reply = await raw.reply()
        assert.equal(reply?.doc['setName'], 'rs0')
        assert.equal((reply!.flags & MORE_TO_COME) !== 0, true)
      }
    } finally {
      raw.close()
    }
    // Another topology version (a server that restarted) is answered at once, without waiting.
    const other = await wire().client.db('admin').command({ hello: 1, topologyVersion: { processId: new ObjectId(), counter: 0 }, maxAwaitTimeMS: 600_000 })
    assert.equal(other['setName'], 'rs0')
  })

  it('meets w: 1 and "majority", and answers w: 2 or an unknown tag set with a writeConcernError of the write, which ran', async () => {
    const coll = wire().client.db('test').collection('concerned')
    await coll.insertOne({ _id: 1 } as Document, { writeConcern: { w: 'majority' } })
    await assert.rejects(coll.insertOne({ _id: 2 } as Document, { writeConcern: { w: 2 } }), (error: unknown) => error instanceof MongoWriteConcernError && error.code === 100 && error.codeName === 'UnsatisfiableWriteConcern')
    // A tag set's name (the driver's types know only numbers and 'majority').
    await assert.rejects(coll.insertOne({ _id: 3 } as Document, { writeConcern: { w: 'dc2' as 'majority' } }), (error: unknown) => error instanceof MongoWriteConcernError && error.code === 79)
    assert.equal(await coll.countDocuments({}), 3)
  })

  it('aborts every open transaction on killAllSessions', async () => {
    const coll = wire().client.db('test').collection('killed')
    const session = wire().client.startSession()
    try {
      session.startTransaction()
      await coll.insertOne({ _id: 1 } as Document, { session })
      await wire().client.db('admin').command({ killAllSessions: [] })
      await assert.rejects(session.commitTransaction(), { code: 251 })
      assert.equal(await coll.countDocuments({}), 0)
    } finally {
      await session.endSession()
    }
  })

  it('answers rs.status(), rs.conf() and rs.initiate() (already initialized, 23)', async () => {
    const admin = wire().client.db('admin')
    const status = await admin.command({ replSetGetStatus: 1 })
    assert.equal(status['set'], 'rs0')
    assert.equal(status['myState'], 1)
    assert.deepEqual(status['members'].map((member: Document) => [member['name'], member['stateStr'], member['self']]), [[`127.0.0.1:${wire().server.port}`, 'PRIMARY', true]])
    const { config } = await admin.command({ replSetGetConfig: 1 })
    assert.equal(config['_id'], 'rs0')
    assert.deepEqual(config['members'].map((member: Document) => member['host']), [`127.0.0.1:${wire().server.port}`])
    await assert.rejects(admin.command({ replSetInitiate: {} }), { code: 23, codeName: 'AlreadyInitialized' })
    await assert.rejects(wire().client.db('test').command({ replSetGetStatus: 1 }), { code: 13 })
  })

  it("advertises the member host it is given (replSetHost), and refuses names mongod's --replSet would", async () => {
    const engine = await openEmbedded()
    try {
      const server = await startWireServer(engine, { replSet: 'other', replSetHost: 'db.example:27017' })
      const client = new MongoClient(`${server.uri}?directConnection=true`)
      try {
        const hello = await client.db('admin').command({ hello: 1 })
        assert.deepEqual([hello['me'], hello['primary'], hello['hosts']], ['db.example:27017', 'db.example:27017', ['db.example:27017']])
      } finally {
        await client.close()
        await server.close()
      }
      await assert.rejects(startWireServer(engine, { replSet: 'a/b' }), RangeError)
      await assert.rejects(startWireServer(engine, { replSet: 'rs0', replSetHost: 'no port' }), RangeError)
      await assert.rejects(startWireServer(engine, { replSetHost: 'db.example:27017' }), RangeError)
    } finally {
      await engine.close()
    }
  })
})

describe('a wire server started without replSet', () => {
  const wire = useWireServer()

  it('stays a standalone: no setName, no cluster time, replication commands answer NoReplicationEnabled (76)', async () => {
    const admin = wire().client.db('admin')
    const hello = await admin.command({ hello: 1 })
    assert.equal(hello['setName'], undefined)
    assert.equal(hello['topologyVersion'], undefined)
    assert.equal((await admin.command({ ping: 1 }))['operationTime'], undefined)
    for (const command of [{ replSetGetStatus: 1 }, { replSetGetConfig: 1 }, { replSetInitiate: {} }]) {
      await assert.rejects(admin.command(command), { code: 76, codeName: 'NoReplicationEnabled' })
    }
  })

  it('refuses a retryable write, as a standalone mongod (IllegalOperation, 20)', async () => {
    const lsid = { id: new Binary(Buffer.alloc(16, 3), 4) }
    const error = await wire().client.db('test').command({ insert: 'r', documents: [{ _id: 1 }], lsid, txnNumber: 1 }).catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 20)
  })
})
