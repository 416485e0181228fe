/**
 * The example of docs/open-internet.md (helmet, CORS, rate limit, under-pressure and request logging on
 * createApp; it was the README's) compiles with tsc --strict and does what its comments say, run as written
 * with a router registered after it (only its logger gets a stream to read, and the pressure test a
 * failing health check).
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import underPressure from '@fastify/under-pressure'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'
import type { App } from '../harness/app.ts'
import { errorsOf, root, tsc, USER_COMPILER_OPTIONS } from '../harness/fresh-project.ts'

const MARKER = '<!-- open-internet:'
const PAGE = 'docs/open-internet.md'
const LISTEN = 'await app.listen({ port: 8000 })'

/** The first ```ts block after the marker of docs/open-internet.md. */
async function example(): Promise<string> {
  const page = await readFile(join(root, PAGE), 'utf8')
  const at = page.indexOf(MARKER)
  assert.notEqual(at, -1, `${PAGE} has no ${MARKER} marker`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(page.slice(at))?.[1] ?? ''
  assert.ok(block.includes(LISTEN), 'no ```ts block ending with app.listen after the marker')
  return block
}

/** `code` with `from` replaced by `to`, which must be there. */
function replaced(code: string, from: string, to: string): string {
  assert.ok(code.includes(from), `the example of ${PAGE} no longer has ${from}`)
  return code.replace(from, to)
}

const logLines: Array<Record<string, unknown>> = []
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line))
    done()
  },
})

const Note = MongoModel('ReadmeNote', { title: Type.String() })

describe('docs/open-internet.md: on the open internet', { timeout: 120_000 }, () => {
  let dir = ''
  let code = ''
  const db = openEmbedded()
  before(async () => {
    code = await example()
    dir = await mkdtemp(join(tmpdir(), 'fmc-open-internet-'))
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'open-internet', private: true, type: 'module' }))
  })
  after(async () => {
    await (await db).close()
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  /** The example as a module whose default export is its app (instead of listening), with a router registered after it. */
  async function load(name: string, source: string): Promise<App> {
    const file = join(dir, `${name}.ts`)
    await writeFile(file, replaced(source, LISTEN, 'export default app'))
    const app = (await import(pathToFileURL(file).href)).default as App
    await app.register(CRUDRouter, { model: Note, db: await db, collectionName: 'readme_notes', prefix: '/notes' })
    return app
  }

  it("compiles with a user's tsc --strict (against the sources: no build needed)", async () => {
    await writeFile(join(dir, 'open-internet.ts'), code)
    const compilerOptions = { ...USER_COMPILER_OPTIONS, customConditions: ['fmc-source'] }
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['open-internet.ts'] }))
    const { output } = await tsc(dir)
    assert.deepEqual(errorsOf(output, 'open-internet.ts'), [], output)
  })

  describe('run', () => {
    let app: App
    before(async () => {
      // Its logger as written, writing where the test reads.
      const source = replaced(code, "logger: { level: 'info' }", "logger: { level: 'info', stream: (globalThis as any).readmeLogStream }")
      ;(globalThis as Record<string, unknown>)['readmeLogStream'] = logStream
      app = await load('run', source)
    })
    after(() => app.close())

    it("helmet's headers, without a Content-Security-Policy", async () => {
      const res = await app.inject('/notes')
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.match(res.headers['strict-transport-security'] as string, /^max-age=\d+/)
      assert.equal(res.headers['content-security-policy'], undefined)
    })

    it("CORS: the front end's origin, every method of the routers, the headers a script may read", async () => {
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/notes/0123456789abcdef01234567',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH' },
      })
      assert.equal(preflight.statusCode, 204)
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com')
      assert.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE')
      const created = await app.inject({ method: 'POST', url: '/notes', headers: { origin: 'https://app.example.com' }, payload: { title: 't' } })
      assert.equal(created.statusCode, 201)
      assert.equal(created.headers['access-control-expose-headers'], 'Location, ETag, Link, X-Total-Count')
    })

    it('request logging at info: a line per request and per answer, with the client address from a trusted proxy', async () => {
      await app.inject({ url: '/notes?limit=1', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '203.0.113.9' } })
      const incoming = logLines.find((line) => line['msg'] === 'incoming request' && (line['req'] as { url: string }).url === '/notes?limit=1')
      assert.equal((incoming?.['req'] as { remoteAddress?: string } | undefined)?.remoteAddress, '203.0.113.9')
      assert.ok(logLines.some((line) => line['msg'] === 'request completed' && line['reqId'] === incoming?.['reqId']))
    })

    it('/health answers while the server copes', async () => {
      const res = await app.inject('/health')
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { status: 'ok' })
    })

    it('past 100 requests a minute from one address: 429 with Retry-After, in the error shape of the routes', async () => {
      const from = { remoteAddress: '198.51.100.1' }
      for (let i = 0; i < 100; i++) assert.equal((await app.inject({ url: '/notes', ...from })).statusCode, 200)
      const res = await app.inject({ url: '/notes', ...from })
      assert.equal(res.statusCode, 429)
      assert.match(res.headers['retry-after'] as string, /^\d+$/)
      assert.deepEqual(res.json(), { detail: 'Rate limit exceeded, retry in 1 minute' })
    })
  })

  it('under pressure: 503 with Retry-After and a detail (the health check failing here)', async () => {
    const source = replaced(code, 'maxEventLoopDelay: 1000,', 'maxEventLoopDelay: 1000, healthCheck: async () => false, healthCheckInterval: 3_600_000,')
    const app = await load('pressure', replaced(source, "logger: { level: 'info' }", 'logger: false'))
    try {
      const res = await app.inject('/notes')
      assert.equal(res.statusCode, 503)
      assert.equal(res.headers['retry-after'], '10')
      assert.deepEqual(res.json(), { detail: 'The server is overloaded: retry later' })
      assert.equal((await app.inject('/health')).statusCode, 503, 'the status route says so too')
    } finally {
      await app.close()
    }
  })

  it("what the example's comments and options avoid: under-pressure's own error is a 500; helmet's default policy blocks /redoc's inline script; @fastify/cors's default methods", async () => {
    const app = await createApp({ fastify: { logger: false } })
    await app.register(underPressure, { healthCheck: async () => false, healthCheckInterval: 3_600_000 })
    try {
      assert.equal((await app.inject('/openapi.json')).statusCode, 500)
    } finally {
      await app.close()
    }
    const { default: helmet } = await import('@fastify/helmet')
    const { default: cors } = await import('@fastify/cors')
    const plain = await createApp({ fastify: { logger: false } })
    await plain.register(helmet)
    await plain.register(cors)
    try {
      const redoc = await plain.inject('/redoc')
      const scriptSrc = /script-src ([^;]*)/.exec(redoc.headers['content-security-policy'] as string)?.[1]
      assert.equal(scriptSrc, "'self'")
      assert.match(redoc.body, /<script>\s*\S/, 'the page runs an inline script, which script-src self does not allow')
      const preflight = await plain.inject({ method: 'OPTIONS', url: '/x', headers: { origin: 'https://a.example', 'access-control-request-method': 'DELETE' } })
      assert.equal(preflight.headers['access-control-allow-methods'], 'GET,HEAD,POST')
    } finally {
      await plain.close()
    }
  })
})
