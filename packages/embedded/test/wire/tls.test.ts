import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MongoClient, MongoServerSelectionError } from 'mongodb'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '../../src/index.ts'
import { selfSignedCertificate } from './tls-certificate.ts'
import { opMsg, RawClient } from './wire-harness.ts'

describe('the wire server with tls (requireTLS)', () => {
  let dir: string
  let files: { keyFile: string, caFile: string }
  let engine: EmbeddedDb
  let server: WireServer

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-tls-'))
    files = await selfSignedCertificate(dir)
    const pem = await readFile(files.keyFile)
    engine = await openEmbedded()
    server = await startWireServer(engine, { tls: { key: pem, cert: pem }, auth: true })
  })

  after(async () => {
    await server?.close()
    await engine?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('says tls=true in its URI, and serves the driver over TLS, its certificate checked against the CA', async () => {
    assert.match(server.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/\?tls=true$/)
    const anonymous = new MongoClient(server.uri, { tlsCAFile: files.caFile })
    await anonymous.db('admin').command({ createUser: 'admin', pwd: 'over-tls', roles: ['root'] })
    await anonymous.close()
    const client = new MongoClient(server.uri.replace('mongodb://', 'mongodb://admin:over-tls@'), { tlsCAFile: files.caFile })
    try {
      await client.db('app').collection<{ _id: number, s: string }>('secrets').insertOne({ _id: 1, s: 'kept' })
      assert.deepEqual(await client.db('app').collection<{ _id: number, s: string }>('secrets').findOne({}), { _id: 1, s: 'kept' })
      const status = await client.db('admin').command({ serverStatus: 1 })
      assert.deepEqual(status['security'], { authorization: 'enabled', tlsMode: 'requireTLS' })
    } finally {
      await client.close()
    }
  })

  it('is refused by a client that does not trust its certificate, unless told to accept any', async () => {
    const untrusting = new MongoClient(server.uri, { serverSelectionTimeoutMS: 1500 })
    await assert.rejects(untrusting.db('admin').command({ ping: 1 }), (error: unknown) => error instanceof MongoServerSelectionError && /self[- ]signed/i.test(error.message))
    await untrusting.close()
    const accepting = new MongoClient(server.uri, { tlsAllowInvalidCertificates: true })
    assert.deepEqual(await accepting.db('admin').command({ ping: 1 }), { ok: 1 })
    await accepting.close()
  })

  it('refuses plain connections: the driver without tls finds no server, a raw hello gets no reply', async () => {
    const plain = new MongoClient(server.uri.replace('?tls=true', ''), { serverSelectionTimeoutMS: 1500 })
    await assert.rejects(plain.db('admin').command({ ping: 1 }), MongoServerSelectionError)
    await plain.close()
    const raw = await RawClient.open(server)
    raw.send(opMsg({ hello: 1, $db: 'admin' }))
    assert.equal(await raw.reply(), undefined)
    await raw.closed
  })
})
