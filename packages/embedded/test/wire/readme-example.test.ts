import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import { MongoClient } from 'mongodb'
import { openEmbedded, startWireServer } from '../../src/index.ts'

/** The example of packages/embedded/README.md, line for line, with its comments as assertions. */
describe('the README example', () => {
  it('runs as written', async () => {
    const db = await openEmbedded() // in memory; openEmbedded({ path: './data' }) keeps the data on disk
    const users = db.collection('users')
    await users.createIndex({ email: 1 }, { unique: true })
    await users.insertOne({ email: 'ann@example.com', name: 'Ann', tags: ['admin', 'dev'] })
    assert.deepEqual(await users.findOne({ email: 'ann@example.com' }, { projection: { _id: 0, name: 1 } }), { name: 'Ann' })
    assert.deepEqual(await users.distinct('tags'), ['admin', 'dev'])

    // The same data over the wire protocol (127.0.0.1, a free port):
    const server = await startWireServer(db)
    assert.match(server.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/)
    const client = await MongoClient.connect(server.uri)
    assert.equal(db.databaseName, 'embedded')
    assert.equal(await client.db(db.databaseName).collection('users').countDocuments(), 1)
    const hello = await client.db('admin').command({ hello: 1 })
    assert.equal(hello['maxMessageSizeBytes'], 48_000_000)
    await client.close()
    await server.close() // the engine stays open: its owner closes it
    assert.equal(await users.countDocuments({}), 1)
    const refused = connect(server.port, server.host)
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException]
    assert.equal(error.code, 'ECONNREFUSED')
    await db.close()
    await assert.rejects(users.countDocuments({}), /closed/)
  })
})
