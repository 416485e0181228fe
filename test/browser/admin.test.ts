// docs/admin.md: the admin page at GET /admin, clicked through by Debian's Chromium over real HTTP, on every
// store. One page load per store; the steps run in order on it, each the promise of a part of the page.
// ADMIN_SCREENSHOT_DIR=docs/images takes the screenshots docs/admin.md shows (on the first store).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import { after, before, it } from 'node:test'
import { CRUDRouter, createApp, HTTPException, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { type Browser, chromium, type Page } from 'playwright-core'
import type { App } from '../harness/app.ts'
import { describeEachStore, type OpenedStore, storeModes } from '../harness/stores.ts'

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const TOKEN = 'the-admin-test-token'
const XSS = '<img src=x onerror="window.injected=1">'
const CITIES = ['Lyon', 'Paris', 'Oslo']
const FILTER = '{"city":{"$in":["Lyon","Oslo"]},"age":{"$gte":29}}'
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

interface Seen {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
}

/** The app under test: users (password hidden, four filterable fields) and notes (a token and a gateway header required). */
async function buildApp(store: OpenedStore, seen: Seen[], feeds: Socket[]): Promise<App> {
  const app = await createApp({ admin: true, title: 'Admin Test API', fastify: { logger: false } })
  app.addHook('onRequest', async (request) => {
    seen.push({ method: request.method, url: request.url, headers: request.headers })
    if (request.url.startsWith('/users/_events')) feeds.push(request.raw.socket)
  })
  const User = MongoModel('User', {
    name: Type.String({ minLength: 1 }),
    email: Type.String(),
    password: Type.String(),
    age: Type.Optional(Type.Integer({ minimum: 0 })),
    city: Type.Optional(Type.String()),
    active: Type.Optional(Type.Boolean()),
  })
  const UserOut = MongoModelOut('UserOut', { name: Type.String(), email: Type.String(), age: Type.Optional(Type.Integer()), city: Type.Optional(Type.String()), active: Type.Optional(Type.Boolean()) })
  await app.register(CRUDRouter, { model: User, modelOut: UserOut, db: store.db, collectionName: 'users', prefix: '/users', tags: ['users'], filterable: ['name', 'age', 'city', 'active'] })
  const Note = MongoModel('Note', { title: Type.String() })
  const gateway = async (request: { headers: Record<string, unknown> }) => {
    if (request.headers['authorization'] !== `Bearer ${TOKEN}` || request.headers['x-gateway-user'] !== 'alice') throw new HTTPException(401, 'A token and the gateway user are required')
  }
  await app.register(CRUDRouter, { model: Note, db: store.db, collectionName: 'notes', prefix: '/notes', tags: ['notes'], dependenciesGetAll: [gateway] })
  return app as unknown as App
}

const user = (i: number) => ({ name: `user-${String(i).padStart(2, '0')}`, email: `u${i}@example.com`, password: 'secret', age: 20 + i, city: CITIES[i % 3], active: i % 2 === 0 })

describeEachStore('the admin page (docs/admin.md)', (mode) => {
  let store: OpenedStore
  let app: App
  let browser: Browser
  let page: Page
  let baseUrl: string
  const seen: Seen[] = []
  const feeds: Socket[] = []
  /** Uncaught exceptions and Content-Security-Policy violations in the page. */
  const errors: string[] = []
  /** Every URL the page asked for. */
  const requested: string[] = []
  const screenshots = mode === storeModes[0] ? process.env['ADMIN_SCREENSHOT_DIR'] : undefined

  before(async () => {
    store = await mode.open()
    app = await buildApp(store, seen, feeds)
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
    const operations = [...Array.from({ length: 24 }, (_, i) => user(i)), { name: XSS, email: 'x@example.com', password: 'secret', age: 50, city: 'Oslo' }].map((body) => ({ op: 'create', body }))
    assert.equal((await app.inject({ method: 'POST', url: '/users/_batch', payload: { operations } })).statusCode, 200)
    for (const title of ['first note', 'second note']) await app.inject({ method: 'POST', url: '/notes', payload: { title } })
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    page = await context.newPage()
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('request', (request) => requested.push(request.url()))
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) errors.push(message.text())
    })
  })
  after(async () => {
    await browser?.close()
    await app?.close()
    await store?.close()
  })

  const rows = () => page.locator('table.documents tbody tr')
  const cells = (column: string) => page.locator(`table.documents tbody td[data-column="${column}"]`).allTextContents()
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const response = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) })
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json() }
  }
  const shot = async (name: string, height = 860) => {
    if (screenshots !== undefined) await page.screenshot({ path: `${screenshots}/admin-${name}.png`, clip: { x: 0, y: 0, width: 1280, height } })
  }
  /**
   * From now on, the page records the id of each row as it starts to flash. A flash lasts two seconds:
   * asked afterwards, a slow machine may find it over already, so the test asks what was recorded.
   */
  const recordFlashes = () =>
    page.evaluate(`{
      window.flashed = []
      new MutationObserver((records) => {
        // One flash is a few changes of the class (put off, then on): each row counts once per batch.
        const started = new Set()
        for (const { target, oldValue } of records) {
          if (target.classList.contains('flash') && !/\\bflash\\b/.test(oldValue ?? '')) started.add(target.getAttribute('data-id'))
        }
        window.flashed.push(...started)
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true })
    }`)
  const flashed = async () => (await page.evaluate('window.flashed')) as string[]
  const lastSeen = (pattern: RegExp) => seen.filter((request) => pattern.test(request.url)).at(-1)
  /** axe-core's rules on the page as it is: no serious or critical violation. */
  const axeCheck = async () => {
    // Evaluated through the DevTools protocol: the page's policy refuses an injected <script>, as it should.
    if (!(await page.evaluate("typeof axe === 'object'"))) await page.evaluate(readFileSync(AXE, 'utf8'))
    const { violations, passes } = (await page.evaluate('axe.run(document)')) as { violations: Array<{ id: string, impact: string, nodes: unknown[] }>, passes: unknown[] }
    assert.ok(passes.length > 20, 'axe ran its rules')
    const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    assert.deepEqual(grave.map((violation) => `${violation.id} (${violation.impact}): ${JSON.stringify(violation.nodes).slice(0, 300)}`), [])
  }
  const shownTotal = async () => Number((await page.locator('.count').textContent())!.split(' ')[0])
  const editorId = () => page.locator('.editor h2').evaluate((h2) => h2.textContent!.replace('Document ', ''))
  const fieldInput = (name: string) => page.locator(`.editor .field[data-field="${name}"]`).locator('input, select, textarea')

  it('serves the page under its Content-Security-Policy, and lists every router of the OpenAPI document', async () => {
    const response = await page.goto(`${baseUrl}/admin`)
    assert.equal(response?.status(), 200)
    assert.match(response!.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    await page.locator('nav button.router').first().waitFor()
    const routers = await page.locator('nav button.router').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-prefix')))
    assert.deepEqual(routers, ['/users', '/notes'])
  })

  it("shows the first router's list: the output model's fields as columns, the total, values as text", async () => {
    await page.locator('.count', { hasText: /^25 documents$/ }).waitFor()
    assert.equal(await rows().count(), 20)
    const columns = await page.locator('table.documents thead th[data-column]').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')))
    assert.deepEqual(columns, ['id', 'name', 'email', 'age', 'city', 'active'])
    // The newest first (sorted by id, descending): the document whose name is markup, shown as its text.
    assert.equal((await cells('name'))[0], XSS)
    assert.equal(await page.locator('table.documents img').count(), 0)
    assert.equal(await page.evaluate('window.injected'), undefined)
    const list = lastSeen(/^\/users\?/)!
    assert.equal(list.headers['prefer'], 'count=exact')
  })

  it('sorts by a column, then pages on through the Link header, the total unchanged', async () => {
    await page.locator('th[data-column="age"] button').click()
    await page.locator('th[data-column="age"][aria-sort="ascending"]').waitFor()
    assert.deepEqual((await cells('age')).slice(0, 3), ['20', '21', '22'])
    await page.locator('th[data-column="age"] button').click()
    await page.locator('th[data-column="age"][aria-sort="descending"]').waitFor()
    assert.deepEqual((await cells('age')).slice(0, 3), ['50', '43', '42'])
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.locator('.pager .page', { hasText: 'Page 2' }).waitFor()
    assert.deepEqual(await cells('age'), ['24', '23', '22', '21', '20'])
    assert.match(lastSeen(/^\/users\?/)!.url, /cursor=/)
    assert.equal(await page.locator('.count').textContent(), '25 documents')
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true)
    await page.getByRole('button', { name: 'Previous page' }).click()
    await page.locator('.pager .page', { hasText: 'Page 1' }).waitFor()
    assert.equal(await rows().count(), 20)
  })

  it('filters with the closed grammar, offering only the filterable fields', async () => {
    await page.getByRole('button', { name: 'Add condition' }).click()
    const field = page.getByLabel('Field of condition 1')
    assert.deepEqual(await field.locator('option').allTextContents(), ['name', 'age', 'city', 'active'])
    assert.deepEqual(await page.getByLabel('Operator of condition 1').locator('option').allTextContents(), ['=', '≠', '>', '≥', '<', '≤', 'is one of (a, b)', 'is none of (a, b)', 'matches (regex, any case)', 'exists'])
    await field.selectOption('city')
    await page.getByLabel('Operator of condition 1').selectOption('$in')
    await page.getByLabel('Value of condition 1').fill('Lyon, Oslo')
    await page.getByRole('button', { name: 'Add condition' }).click()
    await page.getByLabel('Field of condition 2').selectOption('age')
    await page.getByLabel('Operator of condition 2').selectOption('$gte')
    await page.getByLabel('Value of condition 2').fill('29')
    await page.getByRole('button', { name: 'Apply filter' }).click()
    await page.locator('.applied code', { hasText: FILTER }).waitFor()
    await page.locator('.count', { hasText: /^11 documents$/ }).waitFor()
    assert.deepEqual(new Set(await cells('city')), new Set(['Lyon', 'Oslo']))
    assert.equal(new URLSearchParams(lastSeen(/^\/users\?/)!.url.split('?')[1]).get('filters'), FILTER)
  })

  it('shows only the fields picked (fields=)', async () => {
    await page.getByText('Fields shown').click()
    await page.getByRole('checkbox', { name: 'email' }).uncheck()
    await page.locator('table.documents thead th[data-column="email"]').waitFor({ state: 'detached' })
    assert.match(decodeURIComponent(lastSeen(/^\/users\?/)!.url), /fields=name,age,city,active/)
    await shot('list', 770)
  })

  it('live: a document created through the API appears, a changed one flashes, a deleted one goes, without reload', async () => {
    await page.locator('.live', { hasText: 'Live' }).waitFor()
    await recordFlashes()
    const { body: created } = await api('POST', '/users', { name: 'live-1', email: 'l1@example.com', password: 'secret', age: 60, city: 'Lyon' })
    const row = page.locator(`tr[data-id="${created.id}"]`)
    await row.waitFor()
    await page.locator('.count', { hasText: /^12 documents$/ }).waitFor()
    assert.equal(await rows().first().getAttribute('data-id'), created.id, 'first')
    assert.deepEqual(await flashed(), [created.id])
    await page.locator(`tr[data-id="${created.id}"]:not(.flash)`).waitFor()
    await api('PATCH', `/users/${created.id}`, { name: 'live-1b' })
    await row.locator('td[data-column="name"]', { hasText: 'live-1b' }).waitFor()
    assert.deepEqual(await flashed(), [created.id, created.id])
    await api('DELETE', `/users/${created.id}`)
    await row.waitFor({ state: 'detached' })
    await page.locator('.count', { hasText: /^11 documents$/ }).waitFor()
  })

  it('live: reconnects after a cut with Last-Event-ID, and misses nothing said meanwhile', async () => {
    const subscriptions = () => seen.filter((request) => request.url.startsWith('/users/_events'))
    const before = subscriptions().length
    assert.equal(new URLSearchParams(subscriptions().at(-1)!.url.split('?')[1]).get('filters'), FILTER)
    feeds.at(-1)!.destroy()
    const { body: missed } = await api('POST', '/users', { name: 'while-cut', email: 'c@example.com', password: 'secret', age: 62, city: 'Lyon' })
    await page.locator(`tr[data-id="${missed.id}"]`).waitFor()
    const again = subscriptions().slice(before)
    assert.ok(again.length >= 1, 'subscribed again')
    assert.match(String(again[0]!.headers['last-event-id']), /\S/)
  })

  it('edits a document as a form of its model and saves a JSON Patch under If-Match', async () => {
    const id = await rows().first().getAttribute('data-id')
    await rows().first().locator('button.open').click()
    await page.locator('.editor h2', { hasText: `Document ${id}` }).waitFor()
    const fields = await page.locator('.editor .field').evaluateAll((divs) => divs.map((div) => div.getAttribute('data-field')))
    assert.deepEqual(fields, ['name', 'email', 'age', 'city', 'active'])
    const etag = (await app.inject(`/users/${id}`)).headers['etag']
    await fieldInput('name').fill('renamed')
    const sent = page.waitForRequest((request) => request.method() === 'PATCH')
    await page.getByRole('button', { name: 'Save' }).click()
    const patch = await sent
    assert.equal(patch.headers()['content-type'], 'application/json-patch+json')
    assert.equal(patch.headers()['if-match'], etag)
    assert.deepEqual(JSON.parse(patch.postData()!), [{ op: 'replace', path: '/name', value: 'renamed' }])
    await page.locator('.editor .status', { hasText: 'Saved' }).waitFor()
    await page.locator(`tr[data-id="${id}"] td[data-column="name"]`, { hasText: 'renamed' }).waitFor()
  })

  it('a stale edit is answered 412: what changed meanwhile, and Reload', async () => {
    const id = await editorId()
    const { age } = (await api('GET', `/users/${id}`)).body
    await api('PATCH', `/users/${id}`, { age: 77 })
    await fieldInput('name').fill('stale edit')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('.editor [role=alert]', { hasText: '412' }).waitFor()
    assert.deepEqual(await page.locator('.editor .changes li').allTextContents(), [`age: ${age} → 77`])
    await shot('stale')
    await page.getByRole('button', { name: 'Reload' }).click()
    await page.locator('.editor .status', { hasText: 'Reloaded' }).waitFor()
    assert.equal(await fieldInput('age').inputValue(), '77')
    assert.equal(await fieldInput('name').inputValue(), 'renamed')
  })

  it('a 422 shows its message at the field', async () => {
    await fieldInput('age').fill('-5')
    await page.getByRole('button', { name: 'Save' }).click()
    const error = page.locator('.editor .field[data-field="age"] .field-error')
    await error.filter({ hasText: /\S/ }).waitFor()
    assert.equal(await fieldInput('age').getAttribute('aria-invalid'), 'true')
    assert.equal((await api('GET', `/users/${await editorId()}`)).body.age, 77)
  })

  it('edits the same document as raw JSON', async () => {
    await page.getByRole('button', { name: 'JSON', exact: true }).click()
    const box = page.getByLabel('Document as JSON')
    const doc = JSON.parse(await box.inputValue())
    assert.equal(doc.age, -5, 'the form as it was edited')
    await box.fill(JSON.stringify({ ...doc, age: 77, name: 'from json' }))
    const sent = page.waitForRequest((request) => request.method() === 'PATCH')
    await page.getByRole('button', { name: 'Save' }).click()
    assert.deepEqual(JSON.parse((await sent).postData()!), [{ op: 'replace', path: '/name', value: 'from json' }])
    await page.locator('.editor .status', { hasText: 'Saved' }).waitFor()
  })

  it('axe finds no serious or critical violation on the list and the editor', async () => {
    await axeCheck()
  })

  it('deletes the document after a confirmation (Cancel keeps it)', async () => {
    const id = await editorId()
    await page.locator('.editor').getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
    assert.equal((await api('GET', `/users/${id}`)).status, 200)
    await page.locator('.editor').getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    await page.locator(`tr[data-id="${id}"]`).waitFor({ state: 'detached' })
    assert.equal((await api('GET', `/users/${id}`)).status, 400)
    const deletes = seen.filter((request) => request.method === 'DELETE' && request.url === `/users/${id}`)
    assert.equal(deletes.length, 1)
    assert.match(String(deletes[0]!.headers['if-match']), /^"[\w-]+"$/)
  })

  it('creates a document with the form of the create body', async () => {
    const total = await shownTotal()
    await page.getByRole('button', { name: 'New document' }).click()
    await page.locator('.editor h2', { hasText: 'New document' }).waitFor()
    const fields = await page.locator('.editor .field').evaluateAll((divs) => divs.map((div) => div.getAttribute('data-field')))
    assert.deepEqual(fields, ['name', 'email', 'password', 'age', 'city', 'active'])
    await fieldInput('name').fill('made here')
    await fieldInput('email').fill('m@example.com')
    await fieldInput('password').fill('secret')
    await fieldInput('age').fill('40')
    await fieldInput('city').fill('Lyon')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.locator('.editor .status', { hasText: 'Created' }).waitFor()
    const id = await editorId()
    await page.locator(`tr[data-id="${id}"]`).waitFor()
    await page.locator('.count', { hasText: new RegExp(`^${total + 1} documents$`) }).waitFor()
    assert.deepEqual((await api('GET', `/users/${id}`)).body, { id, name: 'made here', email: 'm@example.com', age: 40, city: 'Lyon' })
    await page.locator('.editor').getByRole('button', { name: 'Close' }).click()
  })

  it('deletes the rows selected in one batch, after a confirmation', async () => {
    const ids = await rows().evaluateAll((trs) => trs.slice(0, 2).map((tr) => tr.getAttribute('data-id')!))
    const from = seen.length
    const total = await shownTotal()
    for (const id of ids) await page.getByRole('checkbox', { name: `Select ${id}` }).check()
    await page.getByRole('button', { name: 'Delete selected (2)' }).click()
    const sent = page.waitForRequest((request) => request.method() === 'POST')
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    assert.deepEqual(JSON.parse((await sent).postData()!), { operations: ids.map((id) => ({ op: 'delete', id })) })
    for (const id of ids) await page.locator(`tr[data-id="${id}"]`).waitFor({ state: 'detached' })
    await page.locator('.count', { hasText: new RegExp(`^${total - 2} documents$`) }).waitFor()
    assert.deepEqual(seen.slice(from).filter((request) => request.method === 'POST' && request.url === '/users/_batch').length, 1)
    for (const id of ids) assert.equal((await api('GET', `/users/${id}`)).status, 400)
  })

  it('charts the groups of a field by a metric, over the filter applied', async () => {
    await page.getByRole('button', { name: 'Groups' }).click()
    await page.getByLabel('Group by').selectOption('city')
    assert.ok((await page.getByLabel('Metric').locator('option').allTextContents()).includes('sum:age'))
    await page.getByLabel('Metric').selectOption('count')
    await page.getByRole('button', { name: 'Show chart' }).click()
    await page.locator('svg.chart').waitFor()
    const bars = await page.locator('svg.chart g.bar').evaluateAll((groups) => groups.map((g) => [g.getAttribute('data-key'), Number(g.getAttribute('data-value'))]))
    const query = new URLSearchParams({ by: 'city', metrics: 'count', sort_by: 'count', order_by: 'DESC', filters: FILTER })
    const expected = ((await api('GET', `/users/_groups?${query}`)).body as Array<{ city: string, count: number }>).map((group) => [group.city, group.count])
    assert.deepEqual(bars, expected)
    assert.deepEqual(new Set(expected.map(([city]) => city)), new Set(['Lyon', 'Oslo']))
    await axeCheck()
    await shot('groups', 280)
    await page.getByRole('button', { name: 'Documents' }).click()
  })

  it('clears the filter: every document listed again', async () => {
    await page.getByRole('button', { name: 'Clear filter' }).click()
    await page.locator('.applied code', { hasText: 'none' }).waitFor()
    const total = (await app.inject({ url: '/users?limit=1', headers: { prefer: 'count=exact' } })).headers['x-total-count']
    await page.locator('.count', { hasText: new RegExp(`^${total} documents$`) }).waitFor()
  })

  it('views as a token and a gateway header, kept in the tab only', async () => {
    await page.locator('nav button.router[data-prefix="/notes"]').click()
    await page.locator('[role=alert]', { hasText: 'A token and the gateway user are required' }).waitFor()
    await page.getByText('View as: anonymous').click()
    await page.getByLabel('Bearer token').fill(TOKEN)
    await page.getByRole('button', { name: 'Add header' }).click()
    await page.getByLabel('Header name 1').fill('x-gateway-user')
    await page.getByLabel('Header value 1').fill('alice')
    await page.getByRole('button', { name: 'Apply', exact: true }).click()
    await page.locator('.count', { hasText: /^2 documents$/ }).waitFor()
    await page.locator('.live', { hasText: 'Live' }).waitFor()
    for (const pattern of [/^\/notes\?/, /^\/notes\/_events/]) {
      const request = lastSeen(pattern)!
      assert.equal(request.headers['authorization'], `Bearer ${TOKEN}`)
      assert.equal(request.headers['x-gateway-user'], 'alice')
    }
    await shot('view-as', 660)
    const kept = await page.evaluate('({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie })')
    assert.deepEqual(kept, { local: 0, session: 0, cookie: '' })
    assert.deepEqual(await page.context().cookies(), [])
    assert.ok(seen.every((request) => !request.url.includes(TOKEN)), 'the token is in no URL')
    await page.reload()
    await page.getByText('View as: anonymous').waitFor()
    await page.locator('.count', { hasText: /documents$/ }).waitFor()
    assert.equal(lastSeen(/^\/users\?/)!.headers['authorization'], undefined)
  })

  it('ran without an uncaught error or a Content-Security-Policy violation, asking only for the page, the OpenAPI document and the routes', () => {
    assert.deepEqual(errors, [])
    const paths = new Set(requested.map((url) => {
      assert.equal(new URL(url).origin, new URL(baseUrl).origin, url)
      return new URL(url).pathname.replace(/\/[0-9a-f]{24}$/, '/{id}')
    }))
    assert.deepEqual([...paths].sort(), ['/admin', '/admin/admin.css', '/admin/admin.js', '/notes', '/notes/_events', '/openapi.json', '/users', '/users/_batch', '/users/_events', '/users/_groups', '/users/{id}'])
  })
})
