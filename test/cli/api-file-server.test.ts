import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyServerOptions } from 'fastify'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { SignJWT } from 'jose'
import type { App } from '../harness/app.ts'
import { logCapture } from '../harness/log-capture.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const NOTE = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }
const file = (top: Record<string, unknown>) => ({ ...top, models: { Note: NOTE }, routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } } })

async function build(db: EmbeddedDb, top: Record<string, unknown>, fastify: FastifyServerOptions = { logger: false }): Promise<App> {
  return (await buildApiApp(parseApiFile(JSON.stringify(file(top))), db, { env: { JWT_SECRET: SECRET }, fastify })) as unknown as App
}

const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  url: '/notes/0123456789abcdef01234567',
  headers: { origin, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization,if-match' },
})

describe('API file: serving a browser front end on the open internet', () => {
  let db: EmbeddedDb
  before(async () => {
    db = await openEmbedded()
  })
  after(async () => {
    await db.close()
  })

  it('cors with origins and credentials: the preflight allows every method the routers answer, before any token check', async () => {
    const app = await build(db, { cors: { origins: ['https://app.example.com'], credentials: true, maxAge: 600 }, auth: { type: 'jwt', secretEnv: 'JWT_SECRET' } })
    try {
      const res = await app.inject(preflight('https://app.example.com'))
      assert.equal(res.statusCode, 204)
      assert.equal(res.headers['access-control-allow-origin'], 'https://app.example.com')
      assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE')
      assert.equal(res.headers['access-control-allow-headers'], 'authorization,if-match')
      assert.equal(res.headers['access-control-allow-credentials'], 'true')
      assert.equal(res.headers['access-control-max-age'], '600')
      const stranger = await app.inject(preflight('https://evil.example.com'))
      assert.equal(stranger.headers['access-control-allow-origin'], undefined)
      // A refusal carries the CORS headers too: a front end's script can read the 401 and its challenge.
      const refused = await app.inject({ url: '/notes', headers: { origin: 'https://app.example.com' } })
      assert.equal(refused.statusCode, 401)
      assert.equal(refused.headers['access-control-allow-origin'], 'https://app.example.com')
      assert.equal(refused.headers.vary, 'Origin')
      assert.match(refused.headers['access-control-expose-headers'] as string, /WWW-Authenticate/)
    } finally {
      await app.close()
    }
  })

  it('cors: true allows any origin, and exposes the headers the routes answer (Location, ETag, Link, X-Total-Count...)', async () => {
    const app = await build(db, { cors: true })
    try {
      const res = await app.inject({ method: 'POST', url: '/notes', headers: { origin: 'https://anywhere.example' }, payload: { title: 't' } })
      assert.equal(res.statusCode, 201)
      assert.equal(res.headers['access-control-allow-origin'], '*')
      assert.equal(res.headers['access-control-allow-credentials'], undefined)
      assert.equal(
        res.headers['access-control-expose-headers'],
        'Location, ETag, Link, X-Total-Count, Retry-After, WWW-Authenticate, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset'
      )
      const res2 = await app.inject(preflight('https://anywhere.example'))
      assert.equal(res2.statusCode, 204)
      assert.equal(res2.headers['access-control-allow-origin'], '*')
    } finally {
      await app.close()
    }
  })

  it('without cors, no CORS header: browsers keep other origins out', async () => {
    const app = await build(db, {})
    try {
      const res = await app.inject({ url: '/notes', headers: { origin: 'https://app.example.com' } })
      assert.equal(res.headers['access-control-allow-origin'], undefined)
      assert.equal((await app.inject(preflight('https://app.example.com'))).statusCode, 404)
    } finally {
      await app.close()
    }
  })

  it('rateLimit: past max requests per client address in the window, 429 with Retry-After and a detail in the routes\' error body', async () => {
    const app = await build(db, { rateLimit: { max: 2, timeWindow: '1 minute' } })
    try {
      const first = await app.inject('/notes')
      assert.deepEqual([first.statusCode, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']], [200, '2', '1'])
      assert.equal((await app.inject('/notes')).statusCode, 200)
      const res = await app.inject('/notes')
      assert.equal(res.statusCode, 429)
      assert.match(res.headers['retry-after'] as string, /^\d+$/)
      assert.ok(Number(res.headers['retry-after']) <= 60)
      assert.match(res.json().detail, /^Too many requests: at most 2 per 1 minute from one client; retry in \d+ (second|minute)s?$/)
      assert.deepEqual(Object.keys(res.json()), ['detail'])
      assert.equal((await app.inject({ url: '/notes', remoteAddress: '10.0.0.9' })).statusCode, 200, 'another address has its own count')
      assert.equal((await app.inject('/openapi.json')).statusCode, 200, 'the docs are not counted')
    } finally {
      await app.close()
    }
  })

  it('cors and rateLimit together: preflights are answered first, never counted; the docs answer CORS too', async () => {
    const app = await build(db, { cors: true, rateLimit: { max: 1 } })
    try {
      for (let i = 0; i < 3; i++) assert.equal((await app.inject(preflight('https://a.example'))).statusCode, 204)
      assert.equal((await app.inject('/notes')).statusCode, 200)
      const limited = await app.inject({ url: '/notes', headers: { origin: 'https://a.example' } })
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.headers['access-control-allow-origin'], '*', 'a front end can read its 429')
      assert.equal((await app.inject({ url: '/openapi.json', headers: { origin: 'https://a.example' } })).headers['access-control-allow-origin'], '*')
    } finally {
      await app.close()
    }
  })

  it('trustProxy: the client address (the rate limit key) comes from X-Forwarded-For sent by a trusted proxy only', async () => {
    const app = await build(db, { rateLimit: { max: 1, timeWindow: 60000 }, trustProxy: ['127.0.0.1'] })
    try {
      const via = (client: string, remoteAddress = '127.0.0.1') => app.inject({ url: '/notes', remoteAddress, headers: { 'x-forwarded-for': client } })
      assert.equal((await via('203.0.113.1')).statusCode, 200)
      assert.equal((await via('203.0.113.1')).statusCode, 429)
      assert.equal((await via('203.0.113.2')).statusCode, 200, 'another client behind the proxy')
      assert.equal((await via('203.0.113.3', '198.51.100.7')).statusCode, 200)
      assert.equal((await via('203.0.113.4', '198.51.100.7')).statusCode, 429, 'an untrusted sender cannot pick its address')
    } finally {
      await app.close()
    }
  })

  it("logLevel info: every request and its answer is logged (method, url, status), never the token", async () => {
    const capture = logCapture()
    const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))
    const app = await build(db, { logLevel: 'info', auth: { type: 'jwt', secretEnv: 'JWT_SECRET' } }, { logger: { stream: capture.stream } })
    try {
      await app.inject({ url: '/notes?limit=1', headers: { authorization: `Bearer ${token}` } })
      const incoming = capture.lines.find((line) => line.msg === 'incoming request') as { req: { method: string, url: string } } | undefined
      const completed = capture.lines.find((line) => line.msg === 'request completed') as { res: { statusCode: number } } | undefined
      assert.deepEqual([incoming?.req.method, incoming?.req.url], ['GET', '/notes?limit=1'])
      assert.equal(completed?.res.statusCode, 200)
      assert.ok(!JSON.stringify(capture.lines).includes(token))
    } finally {
      await app.close()
    }
    const quiet = logCapture()
    const warnOnly = await build(db, {}, { logger: { stream: quiet.stream } })
    try {
      await warnOnly.inject('/notes')
      assert.deepEqual(quiet.lines, [], 'without logLevel the app logs at warn: no request lines')
    } finally {
      await warnOnly.close()
    }
  })
})
