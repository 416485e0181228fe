// docs/security.md, "Access policy", in an API file: the README's three roles (admin, member, public) with
// the claims of the token `auth` verifies (a request without a token is the public role's), and `check`
// placing a policy the router refuses at its line and column.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { type JWTPayload, SignJWT } from 'jose'
import type { App } from '../harness/app.ts'
import { locate } from './locate.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const key = new TextEncoder().encode(SECRET)
const token = (claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key)

const ACCESS = [
  { role: 'admin', when: { claim: 'role', equals: 'admin' }, read: true, create: true, update: true, delete: true },
  {
    role: 'member',
    when: { claim: 'sub' },
    read: { $or: [{ owner: { $claim: 'sub' } }, { published: true }] },
    create: { owner: { $claim: 'sub' } },
    update: { owner: { $claim: 'sub' } },
    delete: false,
    hiddenFields: ['internalNotes'],
    readOnlyFields: ['owner'],
  },
  { role: 'public', read: { published: true }, hiddenFields: ['internalNotes', 'email'] },
]

const file = (access: unknown = ACCESS) => ({
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET', required: false },
  models: {
    Post: {
      type: 'object',
      properties: { title: { type: 'string' }, owner: { type: 'string' }, published: { type: 'boolean' }, email: { type: 'string' }, internalNotes: { type: 'string' } },
      required: ['title', 'owner', 'published'],
    },
  },
  routers: { posts: { prefix: '/posts', collection: 'posts', model: 'Post', access } },
})

describe('API file: access with three roles', () => {
  let db: EmbeddedDb
  let app: App
  const headers = { admin: {} as Record<string, string>, alice: {} as Record<string, string> }
  before(async () => {
    db = await openEmbedded()
    app = (await buildApiApp(parseApiFile(JSON.stringify(file(), null, 2), 'api.json'), db, { env: { JWT_SECRET: SECRET }, fastify: { logger: false } })) as unknown as App
    headers.admin = { authorization: `Bearer ${await token({ sub: 'root', role: 'admin' })}` }
    headers.alice = { authorization: `Bearer ${await token({ sub: 'alice' })}` }
    for (const [title, owner, published] of [['a-private', 'alice', false], ['b-private', 'bob', false], ['b-public', 'bob', true]] as const) {
      const created = await app.inject({ method: 'POST', url: '/posts', headers: headers.admin, payload: { title, owner, published, email: `${owner}@example.com`, internalNotes: 'n' } })
      assert.equal(created.statusCode, 201, created.body)
    }
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  const titles = async (extra: Record<string, string>) => {
    const response = await app.inject({ url: '/posts', headers: extra })
    assert.equal(response.statusCode, 200, response.body)
    return (response.json() as Array<Record<string, unknown>>).map((doc) => doc.title).sort()
  }

  it('answers each role what it may read', async () => {
    assert.deepEqual(await titles(headers.admin), ['a-private', 'b-private', 'b-public'])
    assert.deepEqual(await titles(headers.alice), ['a-private', 'b-public'])
    assert.deepEqual(await titles({}), ['b-public'])
    const [shown] = (await app.inject({ url: '/posts' })).json() as Array<Record<string, unknown>>
    assert.deepEqual(Object.keys(shown!).sort(), ['id', 'owner', 'published', 'title'])
  })

  it('fills the owner of what a member creates, and refuses its deletes', async () => {
    const created = await app.inject({ method: 'POST', url: '/posts', headers: headers.alice, payload: { title: 'mine', published: false } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().owner, 'alice')
    assert.equal((await app.inject({ method: 'DELETE', url: `/posts/${created.json().id}`, headers: headers.alice })).statusCode, 403)
  })

  it('refuses a forged token as auth does, rather than treating it as the public role', async () => {
    const response = await app.inject({ url: '/posts', headers: { authorization: 'Bearer not-a-token' } })
    assert.equal(response.statusCode, 401)
  })

  it("documents each route's roles in OpenAPI", async () => {
    const document = (await app.inject({ url: '/openapi.json' })).json()
    const list = document.paths['/posts'].get
    assert.deepEqual(list['x-access-roles'], [
      { role: 'admin', may: 'all' },
      { role: 'member', may: 'some' },
      { role: 'public', may: 'some' },
    ])
    assert.match(list.description, /Roles: admin \(every document\), member \(some documents\), public \(some documents\)/)
    assert.deepEqual(document.paths['/posts/{id}'].delete['x-access-roles'], [
      { role: 'admin', may: 'all' },
      { role: 'member', may: 'none' },
      { role: 'public', may: 'none' },
    ])
  })
})

describe('API file: check places a policy the router refuses', () => {
  it('at the filter that names a field some role does not see', async () => {
    const access = [{ role: 'a', read: { email: 'x' } }, { role: 'b', read: true, hiddenFields: ['email'] }]
    const text = JSON.stringify(file(access), null, 2)
    await assert.rejects(verifyApiFile(text, 'api.json'), (error: Error) => {
      assert.ok(error instanceof ApiFileError, String(error))
      const [issue] = error.issues
      assert.equal(issue!.pointer, '/routers/posts/access/0/read')
      // At the value of `read`, 8 columns after its key.
      const [line, column] = locate(text, '"read": {').split(':').map(Number)
      assert.equal(`${issue!.line}:${issue!.column}`, `${line}:${column! + 8}`)
      assert.match(issue!.message, /field "email" is not filterable/)
      return true
    })
  })

  it('at a key the schema does not know', async () => {
    const text = JSON.stringify(file([{ role: 'a', reads: true }]), null, 2)
    await assert.rejects(verifyApiFile(text, 'api.json'), (error: Error) => {
      assert.ok(error instanceof ApiFileError, String(error))
      assert.match(error.issues[0]!.pointer, /^\/routers\/posts\/access\/0/)
      return true
    })
  })
})
