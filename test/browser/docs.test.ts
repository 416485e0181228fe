// /docs (Swagger UI), /redoc (ReDoc) and /openapi.json, rendered by Debian's Chromium over real HTTP.
// The pages must show the generated routes and must not touch any host but the app itself.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import type { FastifyInstance } from 'fastify'
import { CRUDRouter, createApp, HTTPException, MongoModel, MongoModelOut, securedBy, Type } from 'fastify-mongo-crud'
import { type Browser, chromium, type Page } from 'playwright-core'

const TITLE = 'Docs Test API'

/** The app under test, built through the public API. */
async function buildApp(): Promise<FastifyInstance> {
  db = await openEmbedded()
  const User = MongoModel('User', { name: Type.String(), email: Type.String(), password: Type.String() })
  const UserOut = MongoModelOut('UserOut', { name: Type.String(), email: Type.String() })
  const app = await createApp({
    title: TITLE,
    version: '1.0.0',
    description: 'Browser test of the docs pages.',
    openapi: { securitySchemes: { adminRole: { type: 'apiKey', in: 'header', name: 'x-role' } } },
  })
  // DELETE is guarded by a dependency declared with securedBy: Swagger UI shows its lock and sends x-role.
  const adminOnly = securedBy('adminRole', async (request: { headers: Record<string, unknown> }) => {
    if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
  })
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db, collectionName: 'users', prefix: '/users', tags: ['users'], dependenciesDeleteOne: [adminOnly] })
  return app
}

let db: EmbeddedDb | undefined

const EXPECTED_OPERATIONS = [
  'DELETE /users/{id}',
  'GET /users',
  'GET /users/_events',
  'GET /users/_groups',
  'GET /users/{id}',
  'PATCH /users/{id}',
  'POST /users',
  'POST /users/_batch',
  'PUT /users/{id}',
]

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

interface PageVisit {
  page: Page
  /** Requests to anything but the app: other hosts, or schemes other than http(s), data: and blob:. */
  foreignRequests: string[]
  /** Local requests that failed or answered >= 400. */
  failedRequests: string[]
  /** Console errors and uncaught exceptions. */
  errors: string[]
}

function isLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'data:' || protocol === 'blob:') return true
  return (protocol === 'http:' || protocol === 'https:') && LOCAL_HOSTS.has(hostname)
}

describe('API documentation pages', () => {
  let app: FastifyInstance
  let browser: Browser
  let baseUrl: string

  before(async () => {
    app = await buildApp()
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
  })

  after(async () => {
    await browser?.close()
    await app?.close()
    await db?.close()
  })

  /** Opens `path`, waits for `selector`, then for the network to go idle, recording what happened. */
  async function visit(path: string, selector: string): Promise<PageVisit> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const visit: PageVisit = { page, foreignRequests: [], failedRequests: [], errors: [] }
    page.on('request', (request) => {
      if (!isLocal(request.url())) visit.foreignRequests.push(request.url())
    })
    page.on('requestfailed', (request) => {
      visit.failedRequests.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`)
    })
    page.on('response', (response) => {
      if (response.status() >= 400) visit.failedRequests.push(`${response.url()}: ${response.status()}`)
    })
    page.on('console', (message) => {
      if (message.type() === 'error') visit.errors.push(message.text())
    })
    page.on('pageerror', (error) => visit.errors.push(error.message))

    const response = await page.goto(baseUrl + path)
    assert.equal(response?.status(), 200, `GET ${path}`)
    await page.waitForSelector(selector)
    await page.waitForLoadState('networkidle')
    const screenshotDir = process.env['DOCS_SCREENSHOT_DIR']
    if (screenshotDir) await page.screenshot({ path: `${screenshotDir}/${path.slice(1)}.png`, fullPage: true })
    return visit
  }

  function assertClean(visit: PageVisit): void {
    assert.deepEqual(visit.foreignRequests, [], 'requests to non-local hosts')
    assert.deepEqual(visit.failedRequests, [], 'failed requests')
    assert.deepEqual(visit.errors, [], 'console errors')
  }

  describe('GET /openapi.json', () => {
    it('documents the routes, with their tags and component schemas', async () => {
      const response = await fetch(`${baseUrl}/openapi.json`)
      assert.equal(response.status, 200)
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
      const document = (await response.json()) as {
        openapi: string
        info: { title: string; version: string }
        paths: Record<string, Record<string, { tags?: string[] }>>
        components?: { schemas?: Record<string, unknown> }
      }
      assert.match(document.openapi, /^3\./)
      assert.equal(document.info.title, TITLE)
      assert.deepEqual(Object.keys(document.paths['/users/{id}'] ?? {}).sort(), ['delete', 'get', 'patch', 'put'])
      assert.deepEqual(Object.keys(document.paths['/users'] ?? {}).sort(), ['get', 'post'])
      assert.deepEqual(document.paths['/users/{id}']?.['get']?.tags, ['users'])
      assert.ok(document.components?.schemas?.['UserOut'], 'component schema named after the model')
    })

    it('leaves the documentation routes out of the document', async () => {
      const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: object }
      const docsPaths = Object.keys(document.paths).filter((path) => /^\/(docs|redoc|openapi)/.test(path))
      assert.deepEqual(docsPaths, [])
    })
  })

  describe('GET /docs (Swagger UI)', () => {
    let docs: PageVisit
    before(async () => {
      docs = await visit('/docs', '.opblock-summary-path')
    })
    after(async () => {
      await docs?.page.context().close()
    })

    it('renders every operation with its method and path', async () => {
      const operations = await docs.page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent ?? ''
          const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''
          return `${method} ${path}`
        }),
      )
      assert.deepEqual(operations.sort(), EXPECTED_OPERATIONS)
    })

    it('shows the tag and the title', async () => {
      const tags = await docs.page.$$eval('.opblock-tag', (elements) => elements.map((el) => el.textContent?.trim()))
      assert.ok(
        tags.some((tag) => tag?.startsWith('users')),
        `tags: ${tags.join(', ')}`,
      )
      assert.match((await docs.page.textContent('.info .title')) ?? '', new RegExp(TITLE))
    })

    it('loads only local resources, without errors', () => {
      assertClean(docs)
    })

    it('shows a lock on the operations a securedBy dependency guards, and only there: DELETE, and the batch that may hold a delete', async () => {
      const locked = await docs.page.$$eval('.opblock', (blocks) =>
        blocks
          .filter((block) => block.querySelector('.authorization__btn') !== null)
          .map((block) => `${block.querySelector('.opblock-summary-method')?.textContent ?? ''} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''}`),
      )
      assert.deepEqual(locked.sort(), ['DELETE /users/{id}', 'POST /users/_batch'])
    })

    it('sends the header of the scheme once authorized, on "Try it out"', async () => {
      const { page } = docs
      await page.click('.auth-wrapper .authorize')
      await page.fill('.modal-ux input', 'admin')
      await page.click('.modal-ux .auth-btn-wrapper button.authorize')
      await page.click('.modal-ux .btn-done, .modal-ux button.close-modal')
      await page.click('#operations-users-deleteUser .opblock-summary-control')
      await page.click('#operations-users-deleteUser .try-out__btn')
      await page.fill('#operations-users-deleteUser input[placeholder="id"]', 'ffffffffffffffffffffffff')
      const sent = page.waitForRequest((request) => request.method() === 'DELETE')
      await page.click('#operations-users-deleteUser .execute')
      assert.equal((await sent).headers()['x-role'], 'admin')
    })
  })

  describe('GET /redoc (ReDoc)', () => {
    let redoc: PageVisit
    before(async () => {
      redoc = await visit('/redoc', '.http-verb')
    })
    after(async () => {
      await redoc?.page.context().close()
    })

    it('renders every operation with its method and path', async () => {
      // One endpoint button per operation, in the right-hand panel: <span class="http-verb">get</span><span>/path</span>
      const operations = await redoc.page.$$eval('.http-verb', (verbs) =>
        verbs.map((verb) => `${verb.textContent?.toUpperCase()} ${verb.nextElementSibling?.textContent}`),
      )
      assert.deepEqual(operations.sort(), EXPECTED_OPERATIONS)
    })

    it('shows the tag in the menu and the title', async () => {
      const menu = (await redoc.page.textContent('.menu-content')) ?? ''
      assert.match(menu, /users/)
      assert.equal(await redoc.page.title(), TITLE)
      assert.match((await redoc.page.textContent('h1')) ?? '', new RegExp(TITLE))
    })

    it('loads only local resources, without errors', () => {
      assertClean(redoc)
    })
  })
})
