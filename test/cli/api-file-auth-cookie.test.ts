import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { type JWTPayload, SignJWT } from 'jose'
import type { App } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { locate } from './locate.ts'

/**
 * docs/api-file.md, Tokens, and docs/events.md, In a browser: `auth.cookie` names a cookie the token is
 * also read from, on GET requests only (a browser's EventSource sends no Authorization header); a write
 * still needs the header, so a cookie a browser sends along cannot make one. A change feed ends when its
 * token expires, with a last `end` event saying so.
 */
const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const key = new TextEncoder().encode(SECRET)
const NOW = () => Math.floor(Date.now() / 1000)
const token = (claims: JWTPayload, exp: number | string = '1h') => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(key)
const bearer = (value: string) => ({ authorization: `Bearer ${value}` })
const cookie = (value: string) => ({ cookie: `theme=dark; fmc_token=${value}; other=1` })

const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] }
const api = (auth: Record<string, unknown> = { cookie: 'fmc_token' }) => ({
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET', ...auth },
  models: { Note: NOTE },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note', scope: { field: 'owner', claim: 'sub' } } },
})

async function build(db: EmbeddedDb, file: unknown): Promise<App> {
  const loaded = parseApiFile(JSON.stringify(file, null, 2), 'api.json')
  return (await buildApiApp(loaded, db, { env: { JWT_SECRET: SECRET }, fastify: { logger: false } })) as unknown as App
}

describe("API file auth.cookie: the token read from a cookie on GET requests, a feed ended when its token expires", () => {
  let db: EmbeddedDb
  let app: App
  let alice: string
  let noteId: string
  before(async () => {
    db = await openEmbedded()
    app = await build(db, api())
    await app.listen({ port: 0, host: '127.0.0.1' })
    alice = await token({ sub: 'alice' })
    const created = await app.inject({ method: 'POST', url: '/notes', headers: bearer(alice), payload: { title: 'first' } })
    assert.equal(created.statusCode, 201, created.body)
    noteId = created.json().id
    await app.inject({ method: 'POST', url: '/notes', headers: bearer(await token({ sub: 'bob' })), payload: { title: 'of bob' } })
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  it('the list, a read and _groups take the token from the cookie, under its scope', async () => {
    const list = await app.inject({ url: '/notes', headers: cookie(alice) })
    assert.equal(list.statusCode, 200, list.body)
    assert.deepEqual(list.json().map((note: { title: string }) => note.title), ['first'])
    assert.equal((await app.inject({ url: `/notes/${noteId}`, headers: cookie(alice) })).statusCode, 200)
    assert.equal((await app.inject({ url: '/notes/_groups?by=title', headers: cookie(alice) })).statusCode, 200)
    assert.equal((await app.inject({ method: 'HEAD', url: '/notes', headers: cookie(alice) })).statusCode, 200)
  })

  it('a write with only the cookie is 401, and says the write needs the header: a cookie cannot forge one', async () => {
    const writes = [
      { method: 'POST', url: '/notes', payload: { title: 'forged' } },
      { method: 'PATCH', url: `/notes/${noteId}`, payload: { title: 'forged' } },
      { method: 'PUT', url: `/notes/${noteId}`, payload: { title: 'forged', owner: 'alice' } },
      { method: 'DELETE', url: `/notes/${noteId}` },
      { method: 'POST', url: '/notes/_batch', payload: { operations: [{ op: 'create', body: { title: 'forged' } }] } },
    ] as const
    for (const write of writes) {
      const res = await app.inject({ ...write, headers: cookie(alice) })
      assert.equal(res.statusCode, 401, `${write.method} ${write.url}: ${res.body}`)
      // A batch answers its operation's refusal in its failure body, `{ detail, index }`.
      assert.match(res.json().detail, /^Authentication required: send a token in the Authorization header .*: a write does not read the fmc_token cookie$/)
    }
    const list = (await app.inject({ url: '/notes', headers: bearer(alice) })).json()
    assert.deepEqual(list.map((note: { title: string }) => note.title), ['first'], 'nothing was written')
  })

  it('the Authorization header wins over the cookie; a bad token in the cookie is 401 invalid_token; no token says where to send one', async () => {
    const bob = await token({ sub: 'bob' })
    const both = await app.inject({ url: '/notes', headers: { ...bearer(bob), ...cookie(alice) } })
    assert.deepEqual(both.json().map((note: { title: string }) => note.title), ['of bob'])
    const expired = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(NOW() - 60).sign(key)
    const refused = await app.inject({ url: '/notes', headers: cookie(expired) })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.json().detail, 'The token expired')
    assert.match(refused.headers['www-authenticate'] as string, /^Bearer error="invalid_token"/)
    const none = await app.inject({ url: '/notes', headers: { cookie: 'fmc_token=' } })
    assert.equal(none.statusCode, 401)
    assert.equal(none.json().detail, "Authentication required: send a token in the Authorization header ('Authorization: Bearer <token>') or the fmc_token cookie")
  })

  it('_events reads the cookie (what an EventSource sends): the feed opens and tells the caller\'s changes', async () => {
    const feed = await EventStreamClient.open(app, '/notes/_events', cookie(alice))
    assert.equal(feed.status, 200)
    await app.inject({ method: 'POST', url: '/notes', headers: bearer(await token({ sub: 'bob' })), payload: { title: 'not told' } })
    const created = await app.inject({ method: 'POST', url: '/notes', headers: bearer(alice), payload: { title: 'told' } })
    const [event] = await feed.take(1)
    assert.equal(event!.event, 'create')
    assert.equal(event!.data.id, created.json().id)
    assert.equal(event!.data.document.title, 'told')
    feed.close()
    const refused = await EventStreamClient.open(app, '/notes/_events')
    assert.equal(refused.status, 401)
    refused.close()
  })

  it('a feed ends when its token expires: a last event "end" with reason "token expired", then the stream closes', async () => {
    for (const send of [cookie, bearer]) {
      const expires = NOW() + 2
      const headers = send(await token({ sub: 'alice' }, expires))
      const feed = await EventStreamClient.open(app, '/notes/_events', headers)
      assert.equal(feed.status, 200)
      const [end] = await feed.take(1)
      // Not before the token's exp (the server's clock is this one): it ended for that, not for anything else.
      assert.ok(Date.now() >= expires * 1000, `ended ${expires * 1000 - Date.now()} ms before the token expired`)
      assert.deepEqual([end!.event, end!.data], ['end', { reason: 'token expired' }])
      await feed.ended
      assert.equal(await feed.next(), undefined)
    }
    // A token with a long life keeps its feed open past that.
    const feed = await EventStreamClient.open(app, '/notes/_events', cookie(alice))
    await new Promise((resolve) => setTimeout(resolve, 50))
    await app.inject({ method: 'POST', url: '/notes', headers: bearer(alice), payload: { title: 'later' } })
    assert.equal((await feed.take(1))[0]!.event, 'create')
    feed.close()
  })

  it('without auth.cookie, a cookie is not read', async () => {
    const plain = await build(db, api({}))
    try {
      assert.equal((await plain.inject({ url: '/notes', headers: cookie(alice) })).statusCode, 401)
    } finally {
      await plain.close()
    }
  })

  it('check refuses a cookie name that is not a token of RFC 6265, at its line and column', async () => {
    await verifyApiFile(JSON.stringify(api(), null, 2), 'api.json')
    const text = JSON.stringify(api({ cookie: 'my token' }), null, 2)
    await assert.rejects(verifyApiFile(text, 'api.json'), (error: Error) => {
      assert.ok(error instanceof ApiFileError, String(error))
      assert.deepEqual(error.issues.map((issue) => [`${issue.line}:${issue.column}`, issue.pointer]), [[locate(text, '"my token"'), '/auth/cookie']])
      return true
    })
  })
})
