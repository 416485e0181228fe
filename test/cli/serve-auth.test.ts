// `fastify-mongo-crud serve` on MONGODB_URI with a user's credentials, the database being the engine's
// wire server with authentication on (`auth: true`, as `fastify-mongo-crud-db --auth`): the driver logs in
// as it does to MongoDB, the router serves with that user's roles, and a wrong password stops the start.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '@fastify-mongo-crud/embedded'
import { MongoClient } from 'mongodb'
import { runCli, startCli } from '../harness/cli.ts'

const API = {
  title: 'Notes',
  version: '1.0.0',
  models: { Note: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } },
}

describe('fastify-mongo-crud serve, MONGODB_URI with credentials, on the engine with users', { timeout: 120_000 }, () => {
  let work: string
  let file: string
  let engine: EmbeddedDb
  let server: WireServer
  const uriAs = (user: string, password: string) => server.uri.replace('mongodb://', `mongodb://${user}:${password}@`).replace(/\/$/, '/notes?authSource=notes')

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'fmc-serve-auth-'))
    file = join(work, 'api.json')
    await writeFile(file, JSON.stringify(API))
    engine = await openEmbedded()
    server = await startWireServer(engine, { auth: true })
    // The first user through the localhost exception, then the router's own users.
    const setup = new MongoClient(server.uri)
    await setup.db('admin').command({ createUser: 'admin', pwd: 'admin-secret', roles: ['root'] })
    await setup.close()
    const admin = new MongoClient(server.uri.replace('mongodb://', 'mongodb://admin:admin-secret@'))
    await admin.db('notes').command({ createUser: 'api', pwd: 'api-secret', roles: ['readWrite'] })
    await admin.db('notes').command({ createUser: 'viewer', pwd: 'viewer-secret', roles: ['read'] })
    await admin.close()
  })

  after(async () => {
    await server?.close()
    await engine?.close()
    await rm(work, { recursive: true, force: true })
  })

  it('serves with a readWrite user: creates and lists', async () => {
    const cli = await startCli(['serve', file], { MONGODB_URI: uriAs('api', 'api-secret') })
    try {
      const created = await fetch(`${cli.origin}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'logged in' }) })
      assert.equal(created.status, 201)
      const listed = (await (await fetch(`${cli.origin}/notes`)).json()) as { text: string }[]
      assert.deepEqual(listed.map((note) => note.text), ['logged in'])
    } finally {
      assert.equal(await cli.stop(), 0)
    }
  })

  it('serves reads with a read user, and refuses its writes', async (t) => {
    const cli = await startCli(['serve', file], { MONGODB_URI: uriAs('viewer', 'viewer-secret') })
    try {
      assert.equal((await fetch(`${cli.origin}/notes`)).status, 200)
      const refused = await fetch(`${cli.origin}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'no' }) })
      assert.ok(refused.status >= 400, `a read user's create answered ${refused.status}`)
      t.diagnostic(`a read user's create answered ${refused.status} ${await refused.text()}`)
    } finally {
      assert.equal(await cli.stop(), 0)
    }
  })

  it('does not start with a wrong password, saying authentication failed', async () => {
    const { code, stderr } = await runCli(['serve', file], { MONGODB_URI: uriAs('api', 'wrong'), PORT: '0' })
    assert.notEqual(code, 0)
    assert.match(stderr, /cannot connect to MONGODB_URI: Authentication failed\./)
  })
})
