// docs/admin.md, "Turning it on": GET /admin is off by default, and on with createApp({ admin: true }), the API
// file's "admin": true or `serve --admin`; its answers carry a strict Content-Security-Policy and no inline code.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { ApiFileError, buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { parseServeArgs } from '../../packages/fastify-mongo-crud/src/cli/parse-serve-args.ts'
import { usageOf } from '../../packages/fastify-mongo-crud/src/cli/usage.ts'
import { startCli } from '../harness/cli.ts'

const NOTE = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }
const file = (top: Record<string, unknown> = {}) => ({ ...top, models: { Note: NOTE }, routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } } })

describe('the admin page: off by default, and its three switches', () => {
  let db: EmbeddedDb
  before(async () => {
    db = await openEmbedded()
  })
  after(async () => {
    await db.close()
  })

  it('createApp() serves no /admin (404); createApp({ admin: true }) serves it, outside the OpenAPI document', async () => {
    const off = await createApp({ fastify: { logger: false } })
    assert.equal((await off.inject('/admin')).statusCode, 404)
    await off.close()
    const on = await createApp({ admin: true, title: 'Shop <API>', fastify: { logger: false } })
    const page = await on.inject('/admin')
    assert.equal(page.statusCode, 200)
    assert.match(page.headers['content-type'] as string, /^text\/html/)
    assert.match(page.body, /<title>Shop &lt;API&gt;: admin<\/title>/)
    const paths = Object.keys(((await on.inject('/openapi.json')).json() as { paths: object }).paths)
    assert.deepEqual(paths.filter((path) => path.startsWith('/admin')), [])
    await on.close()
  })

  it('the page and its assets answer under a Content-Security-Policy without inline code, and the page holds none', async () => {
    const app = await createApp({ admin: true, fastify: { logger: false } })
    const page = await app.inject('/admin')
    const csp = page.headers['content-security-policy'] as string
    assert.equal(csp, "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    assert.equal(scripts.length, 1)
    assert.match(scripts[0]![1]!, /src="\/admin\/admin\.js\?v=[\w-]+"/)
    assert.equal(scripts[0]![2], '', 'no inline script')
    assert.doesNotMatch(page.body, /<style|\sstyle=|\son\w+=/i)
    const src = /src="([^"]+)"/.exec(scripts[0]![1]!)![1]!
    const script = await app.inject({ url: src, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(script.statusCode, 200)
    assert.match(script.headers['content-type'] as string, /^application\/javascript/)
    assert.equal(script.headers['content-encoding'], 'gzip')
    assert.equal(script.headers['content-security-policy'], csp)
    const etag = script.headers['etag'] as string
    assert.equal((await app.inject({ url: src, headers: { 'if-none-match': etag } })).statusCode, 304)
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)![1]!
    const style = await app.inject(href)
    assert.equal(style.statusCode, 200)
    assert.match(style.headers['content-type'] as string, /^text\/css/)
    await app.close()
  })

  it('the list route lists the fields a filter may name in its filters parameter (x-filterable): the output model\'s, or filterable', async () => {
    const app = await createApp({ fastify: { logger: false } })
    const Thing = MongoModel('Thing', { title: Type.String(), size: Type.Optional(Type.Integer()), secret: Type.String() })
    const ThingOut = MongoModelOut('ThingOut', { title: Type.String(), size: Type.Optional(Type.Integer()) })
    await app.register(CRUDRouter, { model: Thing, modelOut: ThingOut, db, collectionName: 'things', prefix: '/things' })
    await app.register(CRUDRouter, { model: Thing, modelOut: ThingOut, db, collectionName: 'things', prefix: '/titles', filterable: ['title'] })
    const { paths } = (await app.inject('/openapi.json')).json() as { paths: Record<string, { get: { parameters: Array<{ name: string, schema: Record<string, unknown> }> } }> }
    const filterable = (path: string) => paths[path]!.get.parameters.find((parameter) => parameter.name === 'filters')!.schema['x-filterable']
    assert.deepEqual(filterable('/things'), ['id', 'title', 'size'])
    assert.deepEqual(filterable('/titles'), ['title'])
    await app.close()
  })

  it('the API file\'s "admin": true turns it on, buildApiApp({ admin: true }) too; the schema refuses another value', async () => {
    const on = await buildApiApp(parseApiFile(JSON.stringify(file({ admin: true }))), db, { fastify: { logger: false } })
    assert.equal((await on.inject('/admin')).statusCode, 200)
    await on.close()
    const plain = parseApiFile(JSON.stringify(file()))
    const off = await buildApiApp(plain, db, { fastify: { logger: false } })
    assert.equal((await off.inject('/admin')).statusCode, 404)
    await off.close()
    const flagged = await buildApiApp(plain, db, { fastify: { logger: false }, admin: true })
    assert.equal((await flagged.inject('/admin')).statusCode, 200)
    await flagged.close()
    assert.throws(() => parseApiFile(JSON.stringify(file({ admin: 'yes' }))), (error: unknown) => error instanceof ApiFileError && /admin/.test(error.message))
  })

  it('serve --admin: parsed, in the usage, and served, saying where', async () => {
    assert.equal((parseServeArgs(['serve', 'api.json', '--admin'], {}) as { admin?: boolean }).admin, true)
    assert.equal('admin' in parseServeArgs(['serve', 'api.json'], {}), false)
    assert.match(usageOf('serve'), /--admin/)
    const dir = await mkdtemp(join(tmpdir(), 'fmc-admin-'))
    try {
      await writeFile(join(dir, 'api.json'), JSON.stringify(file()))
      const cli = await startCli(['serve', join(dir, 'api.json'), '--admin'])
      try {
        assert.ok(cli.stdout().includes(`fastify-mongo-crud: admin page at ${cli.origin}/admin\n`), cli.stdout())
        assert.equal((await fetch(`${cli.origin}/admin`)).status, 200)
      } finally {
        await cli.stop()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
