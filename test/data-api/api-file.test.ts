import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { SignJWT } from 'jose'
import { locate } from '../cli/locate.ts'
import type { App } from '../harness/app.ts'
import type { Json } from '../harness/seed.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const ENV = { JWT_SECRET: SECRET, ALICE_KEY: 'alice-key-0123456789abcdef0123456789', ADMIN_KEY: 'admin-key-0123456789abcdef0123456789' }
const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] }

const file = (dataApi: Json = {}) => ({
  title: 'Notes',
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET' },
  dataApi: {
    keys: [
      { name: 'alice', secretEnv: 'ALICE_KEY', claims: { sub: 'alice' } },
      { name: 'admin', secretEnv: 'ADMIN_KEY', claims: { sub: 'root', role: 'admin' } },
    ],
    ...dataApi,
  },
  models: { Note: NOTE },
  routers: {
    notes: {
      prefix: '/notes',
      collection: 'notes',
      model: 'Note',
      access: [
        { role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true, create: true, update: true, delete: true },
        { role: 'owner', when: { claim: 'sub' }, read: { owner: { $claim: 'sub' } }, create: { owner: { $claim: 'sub' } }, update: { owner: { $claim: 'sub' } }, delete: { owner: { $claim: 'sub' } } },
      ],
      guards: { deleteOne: [{ claim: 'role', equals: 'admin' }] },
    },
  },
})

const hs256 = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET))

describe('Data API in an API file: dataApi', () => {
  let db: EmbeddedDb
  let app: App
  before(async () => {
    db = await openEmbedded()
    app = (await buildApiApp(parseApiFile(JSON.stringify(file(), null, 2), 'api.json'), db, { env: ENV, fastify: { logger: false } })) as unknown as App
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  const call = async (action: string, body: Json, headers: Record<string, string>, base = '/app/data-api/endpoint/data/v1') => {
    const res = await app.inject({ method: 'POST', url: `${base}/action/${action}`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ dataSource: 'mongodb-atlas', database: 'embedded', collection: 'notes', ...body }) })
    return { status: res.statusCode, body: res.json() }
  }

  it("serves the file's routers: a key's claims choose the access role, as a token's do", async () => {
    assert.equal((await call('insertOne', { document: { title: 'a1', owner: 'alice' } }, { apiKey: ENV.ALICE_KEY })).status, 201)
    assert.equal((await call('insertOne', { document: { title: 'b1', owner: 'bob' } }, { apiKey: ENV.ADMIN_KEY })).status, 201)
    const alice = await call('find', { filter: {} }, { apiKey: ENV.ALICE_KEY })
    assert.deepEqual(alice.body.documents.map((doc: Json) => doc.title), ['a1'])
    const bob = await call('find', { filter: {} }, { jwtTokenString: await hs256({ sub: 'bob' }) })
    assert.deepEqual(bob.body.documents.map((doc: Json) => doc.title), ['b1'])
    const bearer = await call('find', { filter: {} }, { authorization: `Bearer ${await hs256({ sub: 'bob' })}` })
    assert.deepEqual(bearer.body.documents.map((doc: Json) => doc.title), ['b1'])
  })

  it("a key's claims pass the file's claim guards, as a token's do", async () => {
    assert.equal((await call('deleteOne', { filter: { title: 'a1' } }, { apiKey: ENV.ALICE_KEY })).status, 403)
    assert.deepEqual((await call('deleteOne', { filter: { title: 'a1' } }, { apiKey: ENV.ADMIN_KEY })).body, { deletedCount: 1 })
  })

  it('a token auth does not verify is 401 InvalidSession', async () => {
    const forged = await new SignJWT({ sub: 'bob' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-of-more-than-32-bytes!!'))
    assert.deepEqual((await call('find', { filter: {} }, { jwtTokenString: forged })).body, { error: 'invalid session: error finding user for endpoint', error_code: 'InvalidSession' })
  })

  it('the routes keep their own error format beside the endpoint', async () => {
    const res = await app.inject({ method: 'GET', url: '/notes' })
    assert.equal(res.statusCode, 401)
    assert.ok('detail' in res.json())
  })

  it("a key's environment variable unset, or shorter than 32 characters, stops the start at its place", async () => {
    const text = JSON.stringify(file(), null, 2)
    for (const value of [undefined, 'short']) {
      const env = { ...ENV, ALICE_KEY: value }
      await assert.rejects(buildApiApp(parseApiFile(text, 'api.json'), db, { env, fastify: { logger: false } }), (error: unknown) => {
        assert.ok(error instanceof ApiFileError)
        assert.match(error.message, new RegExp(`api\\.json:${locate(text, '"ALICE_KEY"')}: ${value === undefined ? 'the environment variable ALICE_KEY is not set' : 'ALICE_KEY holds 5 characters'}`))
        return true
      })
    }
  })

  it('prefix moves the endpoint', async () => {
    const moved = (await buildApiApp(parseApiFile(JSON.stringify(file({ prefix: '/data' })), 'api.json'), db, { env: ENV, fastify: { logger: false } })) as unknown as App
    try {
      const res = await moved.inject({ method: 'POST', url: '/data/action/find', headers: { apiKey: ENV.ADMIN_KEY }, payload: { dataSource: 'mongodb-atlas', database: 'embedded', collection: 'notes', filter: {} } })
      assert.equal(res.statusCode, 200)
    } finally {
      await moved.close()
    }
  })
})

describe('check: dataApi errors at their line and column', () => {
  const errors = async (api: Json) => {
    const text = JSON.stringify(api, null, 2)
    try {
      await verifyApiFile(text, 'api.json')
      return { text, message: '' }
    } catch (error) {
      assert.ok(error instanceof ApiFileError)
      return { text, message: error.message }
    }
  }

  it('without keys nor auth, the endpoint could name no caller', async () => {
    const { auth: _, ...api } = file({ keys: undefined })
    const { routers, ...rest } = api
    const { access: _access, guards: _guards, ...notes } = routers.notes
    const { text, message } = await errors({ ...rest, dataApi: {}, routers: { notes } })
    assert.match(message, new RegExp(`api\\.json:${locate(text, '{}', locate(text, '"dataApi"'))}: 'dataApi' needs 'keys' or 'auth'`))
  })

  it('two keys of one name, an unknown key of dataApi, a prefix under a router', async () => {
    const twice = await errors(file({ keys: [{ name: 'k', secretEnv: 'A' }, { name: 'k', secretEnv: 'B' }] }))
    assert.match(twice.message, /'k' names two keys \(at \/dataApi\/keys\/1\/name\)/)
    const unknown = await errors(file({ appid: 'x' }))
    assert.match(unknown.message, /unknown key 'appid'.*did you mean 'appId'\?/)
    const under = await errors(file({ prefix: '/notes/data' }))
    assert.match(under.message, /the Data API's prefix \/notes\/data is under the router 'notes' \(\/notes\)/)
  })
})
