import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Document, type Long, MongoClient, MongoServerError } from 'mongodb'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '../../src/index.ts'
import { AUTHORIZED_COMMANDS } from '../../src/wire/auth/authorize.ts'
import { grants, type Privilege } from '../../src/wire/auth/roles.ts'
import { deriveCredentials, ScramConversation } from '../../src/wire/auth/scram-sha-256.ts'
import { COMMANDS } from '../../src/wire/commands/run-command.ts'

/** A document of these tests: ids of any type (the driver's default types `_id` as an ObjectId). */
interface Item {
  _id?: number | string
  [field: string]: unknown
}

/** `server.uri` with a user's name and password, and its database as `authSource`. */
function uriFor(server: WireServer, user: string, password: string, authSource = 'admin'): string {
  return `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${server.uri.slice('mongodb://'.length)}?authSource=${authSource}`
}

/** Connects as a user (an AuthenticationFailed comes from `connect()`). */
async function login(server: WireServer, user: string, password: string, authSource = 'admin'): Promise<MongoClient> {
  const client = new MongoClient(uriFor(server, user, password, authSource), { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
  } catch (error) {
    await client.close()
    throw error
  }
  return client
}

function refusedWith(code: number, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof MongoServerError, String(error))
    assert.equal(error.code, code, error.message)
    if (message) assert.match(error.message, message)
    return true
  }
}

describe('SCRAM-SHA-256, the server side', () => {
  it('answers RFC 7677\'s test vector: the server-first message, then the server signature', async () => {
    const credentials = await deriveCredentials('pencil', 4096, Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'))
    const conversation = ScramConversation.start(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'), (user) => (user === 'user' ? credentials : undefined), '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0')
    assert.equal(Buffer.from(conversation.serverFirst).toString(), 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096')
    const final = conversation.continue(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='), true)
    assert.equal(Buffer.from(final.payload).toString(), 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')
    assert.equal(final.done, true)
  })

  it('stores a salted key, never the password; refuses what SASLprep cannot normalise, and an empty password', async () => {
    const credentials = await deriveCredentials('pencil')
    assert.equal(credentials.iterationCount, 15_000)
    assert.equal(Buffer.from(credentials.salt, 'base64').length, 28)
    assert.ok(!JSON.stringify(credentials).includes('pencil'))
    await assert.rejects(deriveCredentials('bell\u0007'), { code: 2, message: /SASLprep/ })
    await assert.rejects(deriveCredentials('\u00AD'), { code: 2, message: /Password cannot be empty/ })
  })

  it('fails a wrong proof, a replayed nonce, channel binding and an unknown user alike (AuthenticationFailed)', async () => {
    const credentials = await deriveCredentials('pencil', 4096, Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'))
    const lookup = (user: string) => (user === 'user' ? credentials : undefined)
    const start = () => ScramConversation.start(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'), lookup, '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0')
    const failed = { code: 18, message: 'Authentication failed.' }
    assert.throws(() => start().continue(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAAZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='), true), failed)
    assert.throws(() => start().continue(Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='), true), failed)
    assert.throws(() => ScramConversation.start(Buffer.from('p=tls-unique,,n=user,r=abc'), lookup), failed)
    assert.throws(() => ScramConversation.start(Buffer.from('n,,n=nobody,r=abc'), lookup), failed)
  })
})

describe('built-in roles', () => {
  it('grant what mongod\'s do: on their database, or on every database from admin', () => {
    const on = (db: string, action: string): Privilege => ({ db, action } as Privilege)
    const cases: [string, string, Privilege, boolean][] = [
      ['read', 'app', on('app', 'find'), true],
      ['read', 'app', on('app', 'insert'), false],
      ['read', 'app', on('other', 'find'), false],
      ['readWrite', 'app', on('app', 'remove'), true],
      ['readWrite', 'app', on('app', 'dropDatabase'), false],
      ['dbAdmin', 'app', on('app', 'dropDatabase'), true],
      ['dbAdmin', 'app', on('app', 'find'), false],
      ['userAdmin', 'app', on('app', 'createUser'), true],
      ['userAdmin', 'app', on('app', 'find'), false],
      ['dbOwner', 'app', on('app', 'find'), true],
      ['dbOwner', 'app', on('app', 'grantRole'), true],
      ['dbOwner', 'app', on('other', 'find'), false],
      ['readAnyDatabase', 'admin', on('other', 'find'), true],
      ['readAnyDatabase', 'admin', on('other', 'insert'), false],
      ['readWriteAnyDatabase', 'admin', on('other', 'insert'), true],
      ['dbAdminAnyDatabase', 'admin', on('other', 'dropDatabase'), true],
      ['dbAdminAnyDatabase', 'admin', on('other', 'find'), false],
      ['userAdminAnyDatabase', 'admin', on('other', 'createUser'), true],
      ['root', 'admin', on('other', 'dropDatabase'), true],
      ['root', 'admin', { cluster: true, action: 'serverStatus' }, true],
      ['readWriteAnyDatabase', 'admin', { cluster: true, action: 'serverStatus' }, false],
      ['readWriteAnyDatabase', 'admin', { cluster: true, action: 'listDatabases' }, true],
      // The ...AnyDatabase roles and root exist on admin only.
      ['readAnyDatabase', 'app', on('app', 'find'), false],
      ['root', 'app', on('app', 'find'), false],
    ]
    for (const [role, db, privilege, granted] of cases) assert.equal(grants([{ role, db }], privilege), granted, `${role}@${db} ${JSON.stringify(privilege)}`)
  })
})

describe('the localhost exception', () => {
  it('lets a loopback client create the first user, in admin only', async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine, { auth: true })
    const anonymous = new MongoClient(server.uri)
    try {
      await assert.rejects(anonymous.db('app').command({ createUser: 'first', pwd: 'x', roles: ['read'] }), refusedWith(13, /createUser requires authentication/))
      await anonymous.db('admin').command({ createUser: 'first', pwd: 'x', roles: ['userAdminAnyDatabase'] })
    } finally {
      await anonymous.close()
      await server.close()
      await engine.close()
    }
  })

  it('does not apply to a client from another machine (here: this machine through a non-loopback address)', async (t) => {
    const address = Object.values(networkInterfaces()).flat().find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address
    if (address === undefined) {
      t.skip('no network interface other than loopback')
      return
    }
    const engine = await openEmbedded()
    const server = await startWireServer(engine, { auth: true, host: '0.0.0.0' })
    const remote = new MongoClient(`mongodb://${address}:${server.port}/`, { directConnection: true })
    try {
      await assert.rejects(remote.db('admin').command({ createUser: 'first', pwd: 'x', roles: ['root'] }), refusedWith(13, /createUser requires authentication/))
    } finally {
      await remote.close()
      await server.close()
      await engine.close()
    }
  })
})

describe('the wire server with auth: true', () => {
  let engine: EmbeddedDb
  let server: WireServer
  let root: MongoClient

  before(async () => {
    engine = await openEmbedded()
    server = await startWireServer(engine, { auth: true })
    // The localhost exception: no user yet, this machine may create the first one, in admin.
    const anonymous = new MongoClient(server.uri)
    await anonymous.db('admin').command({ createUser: 'root', pwd: 'root-secret', roles: ['root'] })
    await anonymous.close()
    root = await login(server, 'root', 'root-secret')
    await root.db('app').collection<Item>('items').insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 2 }, { _id: 3, n: 3 }])
    await root.db('other').collection<Item>('things').insertOne({ _id: 1 })
    await root.db('app').command({ createUser: 'reader', pwd: 'reader-secret', roles: ['read'] })
    await root.db('app').command({ createUser: 'writer', pwd: 'writer-secret', roles: [{ role: 'readWrite', db: 'app' }] })
    await root.db('app').command({ createUser: 'schema', pwd: 'schema-secret', roles: ['dbAdmin'] })
    await root.db('admin').command({ createUser: 'auditor', pwd: 'auditor-secret', roles: ['readAnyDatabase'] })
  })

  after(async () => {
    await root?.close()
    await server?.close()
    await engine?.close()
  })

  it('logs the driver in with SCRAM-SHA-256; a wrong password, or an unknown user, is 18 AuthenticationFailed', async () => {
    const reader = await login(server, 'reader', 'reader-secret', 'app')
    assert.deepEqual(await reader.db('app').command({ connectionStatus: 1 }), {
      authInfo: { authenticatedUsers: [{ user: 'reader', db: 'app' }], authenticatedUserRoles: [{ role: 'read', db: 'app' }] },
      ok: 1,
    })
    await reader.close()
    await assert.rejects(login(server, 'reader', 'wrong', 'app'), refusedWith(18, /^Authentication failed\.$/))
    await assert.rejects(login(server, 'nobody', 'reader-secret', 'app'), refusedWith(18, /^Authentication failed\.$/))
    // A user belongs to the database it was created in: the same name in another authSource is another (absent) user.
    await assert.rejects(login(server, 'reader', 'reader-secret', 'admin'), refusedWith(18))
    await assert.rejects(login(server, 'root', 'root-secret', 'admin').then((c) => c.db('admin').command({ saslStart: 1, mechanism: 'SCRAM-SHA-1', payload: Buffer.from('n,,n=root,r=abc') }).finally(() => c.close())), refusedWith(334, /SCRAM-SHA-1 which is not enabled/))
  })

  it('refuses every command but the handshake to a client that has not logged in: 13 Unauthorized', async () => {
    const anonymous = new MongoClient(server.uri)
    try {
      assert.deepEqual(await anonymous.db('admin').command({ ping: 1 }), { ok: 1 })
      assert.equal((await anonymous.db('admin').command({ buildInfo: 1 }))['version'], '7.0.0')
      await assert.rejects(anonymous.db('app').collection<Item>('items').findOne({}), refusedWith(13, /^Command find requires authentication$/))
      await assert.rejects(anonymous.db('app').collection<Item>('items').insertOne({ n: 9 }), refusedWith(13, /^Command insert requires authentication$/))
      await assert.rejects(anonymous.db('admin').command({ listDatabases: 1 }), refusedWith(13))
      await assert.rejects(anonymous.db('admin').command({ serverStatus: 1 }), refusedWith(13))
      // The localhost exception is over once a user exists.
      await assert.rejects(anonymous.db('admin').command({ createUser: 'late', pwd: 'x', roles: ['root'] }), refusedWith(13, /createUser requires authentication/))
      // Other mechanisms: MechanismUnavailable.
      await assert.rejects(anonymous.db('$external').command({ authenticate: 1, mechanism: 'MONGODB-X509' }), refusedWith(334, /MONGODB-X509 which is not enabled/))
      await assert.rejects(anonymous.db('$external').command({ saslStart: 1, mechanism: 'PLAIN', payload: Buffer.from('\0u\0p') }), refusedWith(334, /PLAIN which is not enabled/))
      // An unknown command is CommandNotFound whoever asks, as on mongod.
      await assert.rejects(anonymous.db('admin').command({ frobnicate: 1 }), refusedWith(59))
    } finally {
      await anonymous.close()
    }
  })

  it('lets a read user read and nothing else; readWrite write but not drop the database; dbAdmin manage but not read', async () => {
    const reader = await login(server, 'reader', 'reader-secret', 'app')
    const writer = await login(server, 'writer', 'writer-secret', 'app')
    const schema = await login(server, 'schema', 'schema-secret', 'app')
    try {
      assert.equal(await reader.db('app').collection<Item>('items').countDocuments(), 3)
      await assert.rejects(reader.db('app').collection<Item>('items').insertOne({ n: 4 }), refusedWith(13, /^not authorized on app to execute command \{ insert: "items" \}$/))
      await assert.rejects(reader.db('app').collection<Item>('items').updateOne({ _id: 1 }, { $set: { n: 10 } }), refusedWith(13))
      await assert.rejects(reader.db('app').collection<Item>('items').deleteOne({ _id: 1 }), refusedWith(13))
      await assert.rejects(reader.db('app').collection<Item>('items').createIndex({ n: 1 }), refusedWith(13))
      await assert.rejects(reader.db('app').collection<Item>('items').aggregate([{ $out: 'copy' }]).toArray(), refusedWith(13))
      await assert.rejects(reader.db('other').collection<Item>('things').findOne({}), refusedWith(13, /not authorized on other/))

      await writer.db('app').collection<Item>('items').insertOne({ _id: 4, n: 4 })
      await writer.db('app').collection<Item>('items').updateOne({ _id: 4 }, { $set: { n: 40 } })
      await writer.db('app').collection<Item>('items').deleteOne({ _id: 4 })
      await assert.rejects(writer.db('app').dropDatabase(), refusedWith(13))
      await assert.rejects(writer.db('app').command({ createUser: 'x', pwd: 'x', roles: [] }), refusedWith(13))

      await schema.db('app').collection('scratch').createIndex({ a: 1 })
      assert.equal((await schema.db('app').command({ dbStats: 1 }))['db'], 'app')
      await assert.rejects(schema.db('app').collection<Item>('items').findOne({}), refusedWith(13))
      await schema.db('app').collection('scratch').drop()
    } finally {
      await Promise.all([reader.close(), writer.close(), schema.close()])
    }
  })

  it('lets a read user see its database\'s statistics and plans and its own operations, not the server\'s', async () => {
    const reader = await login(server, 'reader', 'reader-secret', 'app')
    try {
      assert.equal((await reader.db('app').command({ dbStats: 1 }))['db'], 'app')
      assert.equal((await reader.db('app').collection<Item>('items').find({ n: 2 }).explain('executionStats'))['executionStats']['nReturned'], 1)
      assert.equal(((await reader.db('admin').command({ currentOp: 1, $ownOps: true }))['inprog'] as Document[]).length, 1)
      await assert.rejects(reader.db('admin').command({ currentOp: 1 }), refusedWith(13))
      await assert.rejects(reader.db('admin').command({ serverStatus: 1 }), refusedWith(13))
      await assert.rejects(reader.db('admin').command({ killOp: 1, op: 1 }).then(() => reader.db('app').command({ explain: { insert: 'items', documents: [{}] } })), refusedWith(13))
    } finally {
      await reader.close()
    }
  })

  it('gives the ...AnyDatabase roles every database, and lists to others only the databases they have a role on', async () => {
    const auditor = await login(server, 'auditor', 'auditor-secret')
    const reader = await login(server, 'reader', 'reader-secret', 'app')
    try {
      assert.deepEqual(await auditor.db('other').collection<Item>('things').findOne({}), { _id: 1 })
      await assert.rejects(auditor.db('other').collection<Item>('things').insertOne({}), refusedWith(13))
      const names = (databases: Document) => (databases['databases'] as Document[]).map((d) => d['name'])
      assert.deepEqual(names(await auditor.db('admin').command({ listDatabases: 1, nameOnly: true })), ['admin', 'app', 'other'])
      assert.deepEqual(names(await reader.db('admin').command({ listDatabases: 1, nameOnly: true })), ['app'])
      await assert.rejects(reader.db('admin').command({ listDatabases: 1, authorizedDatabases: false }), refusedWith(13))
      // The stored credentials are root's alone to read.
      await assert.rejects(auditor.db('admin').collection<Item>('system.users').findOne({}), refusedWith(13))
    } finally {
      await Promise.all([auditor.close(), reader.close()])
    }
  })

  it('keeps admin.system.users read-only to clients, root included, and shows no password in it', async () => {
    const stored = await root.db('admin').collection<{ _id: string, credentials: Record<string, Document> }>('system.users').findOne({ _id: 'app.reader' })
    assert.deepEqual(Object.keys(stored!.credentials), ['SCRAM-SHA-256'])
    assert.deepEqual(Object.keys(stored!.credentials['SCRAM-SHA-256']!).sort(), ['iterationCount', 'salt', 'serverKey', 'storedKey'])
    assert.ok(!JSON.stringify(stored).includes('reader-secret'))
    await assert.rejects(root.db('admin').collection<Item>('system.users').insertOne({ _id: 'app.sneaky' }), refusedWith(73))
    await assert.rejects(root.db('admin').collection<Item>('system.users').deleteMany({}), refusedWith(73))
    await assert.rejects(root.db('admin').command({ dropDatabase: 1 }), refusedWith(20, /Dropping the 'admin' database is prohibited/))
  })

  it('manages users: usersInfo, a new password, new roles, dropUser (which a connected user feels at once)', async () => {
    await root.db('app').command({ createUser: 'temp', pwd: 'first', roles: ['read'], customData: { team: 'ops' } })
    await assert.rejects(root.db('app').command({ createUser: 'temp', pwd: 'again', roles: [] }), refusedWith(51003, /User "temp@app" already exists/))
    await assert.rejects(root.db('app').command({ createUser: 'bad', pwd: 'x', roles: ['superuser'] }), refusedWith(31, /Could not find role: superuser@app/))
    await assert.rejects(root.db('app').command({ createUser: 'bad', pwd: 'x', roles: ['root'] }), refusedWith(31, /Could not find role: root@app/))
    await assert.rejects(root.db('app').command({ createUser: 'bad', pwd: 'x', roles: [], mechanisms: ['SCRAM-SHA-1'] }), refusedWith(2))
    await assert.rejects(root.db('app').command({ createUser: 'bad', pwd: 'x', roles: [], authenticationRestrictions: [{ clientSource: ['10.0.0.0/8'] }] }), refusedWith(2))
    await assert.rejects(root.db('app').command({ createRole: 'custom', privileges: [], roles: [] }), refusedWith(59))
    await assert.rejects(root.db('app').command({ createUser: 'bad', pwd: 'x', roles: [], digestPassword: false }), refusedWith(2, /requires undigested passwords/))
    const info = await root.db('app').command({ usersInfo: 'temp' })
    assert.deepEqual(
      (info['users'] as Document[]).map(({ userId: _id, ...user }) => user),
      [{ _id: 'app.temp', user: 'temp', db: 'app', roles: [{ role: 'read', db: 'app' }], mechanisms: ['SCRAM-SHA-256'], customData: { team: 'ops' } }]
    )
    const temp = await login(server, 'temp', 'first', 'app')
    try {
      // Itself without viewUser; no one else.
      assert.equal(((await temp.db('app').command({ usersInfo: 'temp' }))['users'] as Document[]).length, 1)
      await assert.rejects(temp.db('app').command({ usersInfo: 'reader' }), refusedWith(13))
      await assert.rejects(temp.db('app').command({ usersInfo: 1 }), refusedWith(13))
      await root.db('app').command({ updateUser: 'temp', pwd: 'second', roles: ['readWrite'] })
      await temp.db('app').collection<Item>('items').insertOne({ _id: 5 })
      await temp.db('app').collection<Item>('items').deleteOne({ _id: 5 })
      await assert.rejects(login(server, 'temp', 'first', 'app'), refusedWith(18))
      const again = await login(server, 'temp', 'second', 'app')
      await again.close()
      await root.db('app').command({ dropUser: 'temp' })
      await assert.rejects(temp.db('app').collection<Item>('items').findOne({}), refusedWith(13))
      await assert.rejects(root.db('app').command({ dropUser: 'temp' }), refusedWith(11, /User 'temp@app' not found/))
      await assert.rejects(root.db('app').command({ updateUser: 'temp', pwd: 'x' }), refusedWith(11))
    } finally {
      await temp.close()
    }
  })

  it('lets a userAdmin of a database grant the roles of that database only', async () => {
    await root.db('app').command({ createUser: 'keeper', pwd: 'keeper-secret', roles: ['userAdmin'] })
    const keeper = await login(server, 'keeper', 'keeper-secret', 'app')
    try {
      await keeper.db('app').command({ createUser: 'helper', pwd: 'helper-secret', roles: ['read'] })
      await assert.rejects(keeper.db('app').command({ createUser: 'boss', pwd: 'x', roles: [{ role: 'root', db: 'admin' }] }), refusedWith(13, /not authorized on admin/))
      assert.deepEqual(((await keeper.db('app').command({ usersInfo: 1 }))['users'] as Document[]).map((u) => u['user']).sort(), ['helper', 'keeper', 'reader', 'schema', 'writer'])
      assert.deepEqual(await keeper.db('app').command({ dropAllUsersFromDatabase: 1 }).then((r) => r['n']), 5)
    } finally {
      await keeper.close()
    }
    await root.db('app').command({ createUser: 'reader', pwd: 'reader-secret', roles: ['read'] })
    await root.db('app').command({ createUser: 'writer', pwd: 'writer-secret', roles: ['readWrite'] })
    await root.db('app').command({ createUser: 'schema', pwd: 'schema-secret', roles: ['dbAdmin'] })
  })

  it('lets only the user that opened a cursor continue it, from any connection', async () => {
    const first = await root.db('app').command({ find: 'items', batchSize: 1 })
    const id = (first['cursor'] as Document)['id'] as Long
    assert.ok(!id.isZero())
    const reader = await login(server, 'reader', 'reader-secret', 'app')
    try {
      await assert.rejects(reader.db('app').command({ getMore: id, collection: 'items' }), refusedWith(13, /was not created by the authenticated user/))
      await assert.rejects(reader.db('app').command({ killCursors: 'items', cursors: [id] }), refusedWith(13))
    } finally {
      await reader.close()
    }
    const next = await root.db('app').command({ getMore: id, collection: 'items', batchSize: 10 })
    assert.equal(((next['cursor'] as Document)['nextBatch'] as Document[]).length, 2)
  })

  it('normalises passwords with SASLprep, as the driver does: a soft hyphen is nothing, Ⅸ is IX', async () => {
    await root.db('app').command({ createUser: 'prepped', pwd: 'I\u00ADX', roles: ['read'] })
    const client = await login(server, 'prepped', '\u2168', 'app')
    await client.close()
    await assert.rejects(root.db('app').command({ createUser: 'unprepped', pwd: 'bell\u0007', roles: [] }), refusedWith(2, /SASLprep/))
    await root.db('app').command({ dropUser: 'prepped' })
  })

  it('has a rule for every command it answers (a command without one would need root)', () => {
    const missing = [...COMMANDS.keys()].filter((name) => !AUTHORIZED_COMMANDS.has(name))
    assert.deepEqual(missing, [])
  })

  it('costs one round trip more than no authentication per connection (the first step rides on the handshake)', async (t) => {
    // Counted by the server: a connection, a ping and the client's close, with and without a login.
    const counter = new MongoClient(uriFor(server, 'root', 'root-secret'), { heartbeatFrequencyMS: 60_000 })
    const commands = async () => ((await counter.db('admin').command({ serverStatus: 1 }))['opcounters'] as Document)['command'] as number
    const commandsOf = async (uri: string) => {
      const before = await commands()
      const client = new MongoClient(uri, { maxPoolSize: 1 })
      await client.db('admin').command({ ping: 1 })
      await client.close()
      return (await commands()) - before
    }
    try {
      assert.equal((await commandsOf(uriFor(server, 'reader', 'reader-secret', 'app'))) - (await commandsOf(server.uri)), 1)
    } finally {
      await counter.close()
    }
    const median = async (uri: string) => {
      const ms: number[] = []
      for (let i = 0; i < 7; i++) {
        const client = new MongoClient(uri, { maxPoolSize: 1 })
        const started = performance.now()
        await client.db('admin').command({ ping: 1 })
        ms.push(performance.now() - started)
        await client.close()
      }
      return ms.sort((a, b) => a - b)[3]!
    }
    await root.db('app').command({ createUser: 'timed', pwd: 'timed-secret', roles: ['read'] })
    const first = performance.now()
    await (await login(server, 'timed', 'timed-secret', 'app')).close()
    const firstMs = performance.now() - first
    const plain = await median(server.uri)
    const authenticated = await median(uriFor(server, 'timed', 'timed-secret', 'app'))
    t.diagnostic(`a client's connect and ping, median of 7: ${plain.toFixed(1)} ms without a login, ${authenticated.toFixed(1)} ms with SCRAM-SHA-256; the process's first login of that user ${firstMs.toFixed(1)} ms (the driver's 15,000 PBKDF2 iterations, which it then caches)`)
    await root.db('app').command({ dropUser: 'timed' })
  })
})

describe('users in a data directory', () => {
  it('outlive the process, as the data does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fmc-users-'))
    try {
      let engine = await openEmbedded({ path: dir })
      let server = await startWireServer(engine, { auth: true })
      const anonymous = new MongoClient(server.uri)
      await anonymous.db('admin').command({ createUser: 'admin', pwd: 'kept', roles: ['root'] })
      await anonymous.close()
      await server.close()
      await engine.close()
      engine = await openEmbedded({ path: dir })
      server = await startWireServer(engine, { auth: true })
      try {
        const admin = await login(server, 'admin', 'kept')
        assert.deepEqual(await admin.db('admin').command({ connectionStatus: 1 }).then((s) => s['authInfo']['authenticatedUsers']), [{ user: 'admin', db: 'admin' }])
        await admin.close()
        const anonymousAgain = new MongoClient(server.uri)
        await assert.rejects(anonymousAgain.db('admin').command({ createUser: 'second', pwd: 'x', roles: ['root'] }), refusedWith(13))
        await anonymousAgain.close()
      } finally {
        await server.close()
        await engine.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('the wire server without auth (the default)', () => {
  it('runs every command for anyone, users included, and still logs a user in when asked', async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine)
    const anonymous = new MongoClient(server.uri)
    try {
      await anonymous.db('app').collection<Item>('items').insertOne({ _id: 1 })
      await anonymous.db('app').command({ createUser: 'someone', pwd: 'pw', roles: ['read'] })
      await anonymous.db('app').command({ createUser: 'another', pwd: 'pw', roles: ['read'] })
      const someone = await login(server, 'someone', 'pw', 'app')
      // Without --auth, roles bind nothing (as on mongod): a read user may write.
      await someone.db('app').collection<Item>('items').insertOne({ _id: 2 })
      await someone.close()
      await assert.rejects(login(server, 'someone', 'wrong', 'app'), refusedWith(18))
    } finally {
      await anonymous.close()
      await server.close()
      await engine.close()
    }
  })
})
