// docs/events.md, "In a browser": a page's EventSource, which sends no Authorization header, subscribes to
// `_events` with the token in the cookie `auth.cookie` names, and is told `end` when the token expires.
// Rendered by Debian's Chromium over real HTTP.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { SignJWT } from 'jose'
import { type Browser, chromium, type Page } from 'playwright-core'
import type { App } from '../harness/app.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const key = new TextEncoder().encode(SECRET)
const token = (sub: string, exp: number | string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(key)

const API = {
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET', cookie: 'fmc_token' },
  models: { Note: { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] } },
  routers: { notes: { prefix: '/api/notes', collection: 'notes', model: 'Note', scope: { field: 'owner', claim: 'sub' } } },
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/**
 * The docs' example, run in the page (as text: the browser's globals are not this program's): the feed's
 * events are kept in `received`, and `end` closes the feed. Resolves once the feed is open.
 */
const SUBSCRIBE = `new Promise((resolve, reject) => {
  window.received = []
  const feed = new EventSource('/api/notes/_events')
  for (const type of ['create', 'update', 'delete', 'end']) {
    feed.addEventListener(type, (message) => {
      window.received.push({ type, data: JSON.parse(message.data) })
      if (type === 'end') feed.close()
    })
  }
  feed.onopen = () => resolve()
  feed.onerror = () => reject(new Error('the feed failed, readyState ' + feed.readyState))
})`
const RECEIVED = 'window.received'

describe('docs/events.md: an EventSource authenticated by the auth cookie', () => {
  let db: EmbeddedDb
  let app: App
  let browser: Browser
  let baseUrl: string
  before(async () => {
    db = await openEmbedded()
    app = (await buildApiApp(parseApiFile(JSON.stringify(API), 'api.json'), db, { env: { JWT_SECRET: SECRET }, fastify: { logger: false } })) as unknown as App
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  })
  after(async () => {
    await browser?.close()
    await app?.close()
    await db?.close()
  })

  /** A page of the API's origin whose sign-in set the cookie (HttpOnly: the page's script cannot read it), subscribed to the feed. */
  async function subscribed(value: string): Promise<Page> {
    const context = await browser.newContext()
    await context.addCookies([{ name: 'fmc_token', value, url: baseUrl, httpOnly: true, sameSite: 'Strict' }])
    const page = await context.newPage()
    assert.equal((await page.goto(`${baseUrl}/openapi.json`))?.status(), 200)
    await page.evaluate(SUBSCRIBE)
    return page
  }

  it("the feed opens with the cookie alone, and tells the caller's changes", async () => {
    const alice = await token('alice', '1h')
    const page = await subscribed(alice)
    const created = await app.inject({ method: 'POST', url: '/api/notes', headers: { authorization: `Bearer ${alice}` }, payload: { title: 'hello' } })
    assert.equal(created.statusCode, 201, created.body)
    await page.waitForFunction(`${RECEIVED}.length > 0`)
    const received = await page.evaluate(RECEIVED)
    assert.deepEqual(received, [{ type: 'create', data: { id: created.json().id, document: { id: created.json().id, title: 'hello', owner: 'alice' } } }])
    await page.context().close()
  })

  it('a write from the page with the cookie alone is 401', async () => {
    const page = await subscribed(await token('alice', '1h'))
    const status = await page.evaluate(`fetch('/api/notes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"forged"}' }).then((res) => res.status)`)
    assert.equal(status, 401)
    await page.context().close()
  })

  it('the feed is told end, reason "token expired", when its token expires', async () => {
    const page = await subscribed(await token('alice', Math.floor(Date.now() / 1000) + 2))
    await page.waitForFunction(`${RECEIVED}.some((event) => event.type === 'end')`, undefined, { timeout: 5000 })
    assert.deepEqual(await page.evaluate(RECEIVED), [{ type: 'end', data: { reason: 'token expired' } }])
    await page.context().close()
  })
})
