import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openEmbedded, startWireServer } from '@fastify-mongo-crud/embedded'
import { type LoadedApiFile, loadApiFile } from 'fastify-mongo-crud/api-file'
import { MongoClient } from 'mongodb'
import { DatabaseError, openDatabase } from '../../packages/fastify-mongo-crud/src/cli/open-database.ts'
import { parseServeArgs, UsageError } from '../../packages/fastify-mongo-crud/src/cli/parse-serve-args.ts'
import { type ServedApi, startApi } from '../../packages/fastify-mongo-crud/src/cli/start-api.ts'
import { runCli, startCli } from '../harness/cli.ts'
import { locate } from './locate.ts'

const OWNER = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const OTHER = 'bbbbbbbbbbbbbbbbbbbbbbbb'

/** A small API: tasks scoped by the x-user header, deleted by admins only, small pages and bodies. */
const API = {
  title: 'Tasks',
  version: '2.0.0',
  limits: { bodyLimit: 2048, maxLimit: 5 },
  models: {
    Task: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        owner: { type: 'string', format: 'objectid' },
        secret: { type: 'string' },
      },
      required: ['title', 'owner'],
    },
  },
  routers: {
    tasks: {
      prefix: '/tasks',
      collection: 'tasks',
      model: 'Task',
      hidden: ['secret'],
      scope: { field: 'owner', header: 'x-user' },
      guards: { deleteOne: [{ header: 'x-role', equals: ['admin', 'owner'], detail: 'Admins only' }] },
    },
  },
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json', 'x-user': OWNER }, body: JSON.stringify(body) })

const LOCAL = { port: 0, host: '127.0.0.1', data: undefined }

/**
 * What `serve` does, run in-process (startApi: the file, the database choice, real HTTP on 127.0.0.1),
 * then the command itself in a child process, as few times as possible (each start compiles the sources).
 */
describe('fastify-mongo-crud serve', { timeout: 120_000 }, () => {
  let dir: string
  let file: string
  let loaded: LoadedApiFile
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-serve-'))
    file = join(dir, 'api.json')
    await writeFile(file, JSON.stringify({ ...API, database: { engine: 'embedded', path: 'store' } }, null, 2))
    loaded = await loadApiFile(file)
  })
  after(() => rm(dir, { recursive: true, force: true }))

  describe('on the embedded engine, data in the directory the file names (relative to the file)', () => {
    let served: ServedApi
    before(async () => {
      served = await startApi(loaded, LOCAL, {})
    })
    after(() => served.close())

    it('listens on the host and port given, and keeps the data under the file directory', () => {
      assert.match(served.origin, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.equal(served.database, `embedded engine, data in ${join(dir, 'store')}`)
      assert.ok(existsSync(join(dir, 'store')))
    })

    it('serves /docs, /redoc and the OpenAPI document with the file title and version', async () => {
      for (const path of ['/docs', '/redoc']) assert.equal((await fetch(`${served.origin}${path}`)).status, 200, path)
      const spec = (await (await fetch(`${served.origin}/openapi.json`)).json()) as { info: { title: string, version: string }, paths: Record<string, unknown>, tags?: Array<{ name: string }> }
      assert.deepEqual(spec.info, { title: 'Tasks', version: '2.0.0' })
      // The list's own paths (`_batch`, `_groups`: docs/batch.md, docs/groups.md) aside.
      assert.deepEqual(Object.keys(spec.paths).filter((path) => !/\/_[a-z]+$/.test(path)).sort(), ['/tasks', '/tasks/{id}'])
      assert.ok(spec.paths['/tasks/_groups'] !== undefined, 'no /tasks/_groups')
      const list = (spec.paths['/tasks'] as { get: { tags: string[] } }).get
      assert.deepEqual(list.tags, ['tasks'], 'a router without tags is tagged with its name')
      assert.deepEqual(Object.keys((spec as unknown as { components: { schemas: Record<string, { properties: object }> } }).components.schemas['TaskOut']!.properties).sort(), ['id', 'owner', 'title'])
    })

    it('creates and reads documents over HTTP, never showing a hidden field', async () => {
      const created = await fetch(`${served.origin}/tasks`, json({ title: 'write docs', owner: OWNER, secret: 's3cret' }))
      assert.equal(created.status, 201)
      const task = (await created.json()) as { id: string }
      assert.deepEqual(task, { id: task.id, title: 'write docs', owner: OWNER })
      const read = await fetch(`${served.origin}/tasks/${task.id}`, { headers: { 'x-user': OWNER } })
      assert.deepEqual(await read.json(), task)
    })

    it('scopes every route by the header: 401 without it or with a value its field refuses, before the body is read', async () => {
      for (const headers of [{}, { 'x-user': 'not-an-id' }]) {
        const res = await fetch(`${served.origin}/tasks`, { headers })
        assert.equal(res.status, 401)
        assert.deepEqual(await res.json(), { detail: 'Send the x-user header' })
      }
      const invalidBody = await fetch(`${served.origin}/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      assert.equal(invalidBody.status, 401)
    })

    it('another user sees nothing and cannot create in someone else\'s scope (403)', async () => {
      assert.deepEqual(await (await fetch(`${served.origin}/tasks`, { headers: { 'x-user': OTHER } })).json(), [])
      const foreign = await fetch(`${served.origin}/tasks`, json({ title: 'not mine', owner: OTHER }))
      assert.equal(foreign.status, 403)
    })

    it('fills the scope field on create when the body leaves it out', async () => {
      const res = await fetch(`${served.origin}/tasks`, json({ title: 'implicit owner' }))
      assert.equal(res.status, 201)
      assert.equal(((await res.json()) as { owner: string }).owner, OWNER)
    })

    it('runs the guards of a route: their status and detail unless the header holds an accepted value', async () => {
      const task = (await (await fetch(`${served.origin}/tasks`, json({ title: 'to delete' }))).json()) as { id: string }
      const url = `${served.origin}/tasks/${task.id}`
      for (const role of [undefined, 'member']) {
        const refused = await fetch(url, { method: 'DELETE', headers: { 'x-user': OWNER, ...(role ? { 'x-role': role } : {}) } })
        assert.equal(refused.status, 403)
        assert.deepEqual(await refused.json(), { detail: 'Admins only' })
      }
      assert.equal((await fetch(url, { method: 'DELETE' })).status, 401, 'the scope is checked first')
      assert.equal((await fetch(url, { method: 'DELETE', headers: { 'x-user': OWNER, 'x-role': 'owner' } })).status, 204)
    })

    it('applies the limits: maxLimit to every router, bodyLimit to the app', async () => {
      assert.equal((await fetch(`${served.origin}/tasks?limit=6`, { headers: { 'x-user': OWNER } })).status, 422)
      assert.equal((await fetch(`${served.origin}/tasks?limit=5`, { headers: { 'x-user': OWNER } })).status, 200)
      assert.equal((await fetch(`${served.origin}/tasks`, json({ title: 'x'.repeat(3000) }))).status, 413)
    })
  })

  it('--data, then FMC_DATA_DIR, then the file choose the data directory', async () => {
    const flag = join(dir, 'from-flag')
    const env = join(dir, 'from-env')
    const first = await startApi(loaded, { ...LOCAL, data: flag }, { FMC_DATA_DIR: env })
    await first.close()
    assert.equal(first.database, `embedded engine, data in ${flag}`)
    assert.ok(existsSync(flag) && !existsSync(env))
    const second = await startApi(loaded, LOCAL, { FMC_DATA_DIR: env })
    await second.close()
    assert.equal(second.database, `embedded engine, data in ${env}`)
  })

  it('without any choice, the embedded engine keeps the data in memory', async () => {
    const memory = await loadApiFile(join(dir, 'memory.json')).catch(() => undefined)
    assert.equal(memory, undefined)
    await writeFile(join(dir, 'memory.json'), JSON.stringify(API))
    const served = await startApi(await loadApiFile(join(dir, 'memory.json')), LOCAL, {})
    await served.close()
    assert.equal(served.database, 'embedded engine, data in memory (lost on exit)')
  })

  it('serves a MongoDB database when MONGODB_URI is set (here the engine behind its wire server), before FMC_DATA_DIR and the file', async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine)
    try {
      const served = await startApi(loaded, LOCAL, { MONGODB_URI: `${server.uri.replace(/\/?(\?|$)/, '/shop$1')}`, FMC_DATA_DIR: join(dir, 'unused') })
      try {
        assert.equal(served.database, 'MongoDB, database shop')
        assert.equal((await fetch(`${served.origin}/tasks`, json({ title: 'over the wire' }))).status, 201)
      } finally {
        await served.close()
      }
      assert.ok(!existsSync(join(dir, 'unused')))
      const flagFirst = await startApi(loaded, { ...LOCAL, data: join(dir, 'flag-first') }, { MONGODB_URI: server.uri })
      await flagFirst.close()
      assert.equal(flagFirst.database, `embedded engine, data in ${join(dir, 'flag-first')}`)
      const named = join(dir, 'named.json')
      await writeFile(named, JSON.stringify({ ...API, database: { engine: 'mongodb', name: 'named' } }))
      const onNamed = await startApi(await loadApiFile(named), LOCAL, { MONGODB_URI: server.uri })
      try {
        assert.equal((await fetch(`${onNamed.origin}/tasks`, json({ title: 'in named' }))).status, 201)
      } finally {
        await onNamed.close()
      }
      const client = new MongoClient(server.uri)
      try {
        const stored = await client.db('shop').collection('tasks').find({}).toArray()
        assert.deepEqual(stored.map((doc) => doc['title']), ['over the wire'])
        const inNamed = await client.db('named').collection('tasks').find({}).toArray()
        assert.deepEqual(inNamed.map((doc) => doc['title']), ['in named'])
      } finally {
        await client.close()
      }
    } finally {
      await server.close()
      await engine.close()
    }
  })

  it('instances sharing FMC_SECRET (two on one database) accept each other\'s page cursors and ETags; one without it refuses them', async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine)
    const secret = 's'.repeat(32)
    const env = { MONGODB_URI: server.uri.replace(/\/?(\?|$)/, '/shared$1') }
    const started: ServedApi[] = []
    const start = async (options: { secret?: string }) => {
      const served = await startApi(loaded, { ...LOCAL, ...options }, env)
      started.push(served)
      return served
    }
    try {
      const [a, b] = [await start({ secret }), await start({ secret })]
      // Without a secret an instance has its process's random one (here the test's process: shared by all of its instances).
      const lone = await start({})
      const headers = { 'x-user': OWNER }
      let id = ''
      for (const title of ['a', 'b', 'c']) id = ((await (await fetch(`${a.origin}/tasks`, json({ title }))).json()) as { id: string }).id
      /** The next page's URL (path and query) that `served` links from the first page of 2. */
      const nextPage = async (served: ServedApi) => {
        const link = (await fetch(`${served.origin}/tasks?limit=2&sort_by=title`, { headers })).headers.get('link') ?? ''
        return /^<[^>]*?(\/tasks\?[^>]+)>; rel="next"$/.exec(link)?.[1] ?? assert.fail(`no next link: ${link}`)
      }
      const tagOf = async (served: ServedApi) => (await fetch(`${served.origin}/tasks/${id}`, { headers })).headers.get('etag') ?? assert.fail('no ETag')

      const shared = await fetch(`${b.origin}${await nextPage(a)}`, { headers })
      assert.equal(shared.status, 200)
      assert.deepEqual(((await shared.json()) as { title: string }[]).map((task) => task.title), ['c'])
      assert.equal((await fetch(`${b.origin}/tasks/${id}`, { headers: { ...headers, 'if-none-match': await tagOf(a) } })).status, 304)

      const refused = await fetch(`${lone.origin}${await nextPage(a)}`, { headers })
      assert.equal(refused.status, 400)
      assert.match(((await refused.json()) as { detail: string }).detail, /^cursor is invalid, or was issued for another filter/)
      assert.equal((await fetch(`${lone.origin}/tasks/${id}`, { headers: { ...headers, 'if-none-match': await tagOf(a) } })).status, 200)
    } finally {
      for (const served of started) await served.close()
      await server.close()
      await engine.close()
    }
  })

  it('a file asking for MongoDB without MONGODB_URI is an error at the engine key', async () => {
    const mongo = join(dir, 'mongo.json')
    const text = JSON.stringify({ ...API, database: { engine: 'mongodb' } }, null, 2)
    await writeFile(mongo, text)
    await assert.rejects(startApi(await loadApiFile(mongo), LOCAL, {}), (error: Error) => {
      assert.ok(error instanceof DatabaseError)
      assert.equal(error.message, `${mongo}:${locate(text, '"mongodb"')}: the file asks for MongoDB, but MONGODB_URI is not set`)
      return true
    })
  })

  it('the embedded engine missing: an error telling to install it or to set MONGODB_URI', async () => {
    await assert.rejects(openDatabase({ engine: 'embedded', path: undefined }, '@fastify-mongo-crud/not-installed'), (error: Error) => {
      assert.ok(error instanceof DatabaseError)
      assert.match(error.message, /the embedded engine is not installed: run `npm install @fastify-mongo-crud\/not-installed`, or set MONGODB_URI/)
      return true
    })
  })

  it('a port in use fails the start (EADDRINUSE) and closes the database it opened', async () => {
    const busy = await startApi(loaded, { ...LOCAL, data: join(dir, 'busy') }, {})
    try {
      const port = Number(new URL(busy.origin).port)
      await assert.rejects(startApi(loaded, { ...LOCAL, port, data: join(dir, 'busy-2') }, {}), /EADDRINUSE/)
      // Its data directory was released: opening it again works.
      const again = await startApi(loaded, { ...LOCAL, data: join(dir, 'busy-2') }, {})
      await again.close()
    } finally {
      await busy.close()
    }
  })

  describe('the command line', () => {
    it('takes --port, --host and --data, else PORT and HOST, else 8000 and 127.0.0.1', () => {
      assert.deepEqual(parseServeArgs(['serve', 'api.json'], {}), { command: 'serve', file: 'api.json', port: 8000, host: '127.0.0.1', data: undefined })
      assert.deepEqual(parseServeArgs(['serve', 'api.json'], { PORT: '9000', HOST: '0.0.0.0' }), { command: 'serve', file: 'api.json', port: 9000, host: '0.0.0.0', data: undefined })
      assert.deepEqual(parseServeArgs(['serve', 'a.json', '--port', '0', '--host', '::1', '--data', 'd'], { PORT: '9000' }), { command: 'serve', file: 'a.json', port: 0, host: '::1', data: 'd' })
      assert.deepEqual(parseServeArgs(['check', 'a.json'], {}), { command: 'check', file: 'a.json', port: 8000, host: '127.0.0.1', data: undefined })
      assert.deepEqual(parseServeArgs(['--help'], {}), { command: 'help' })
    })

    it('takes FMC_SECRET, at least 32 characters, as the secret of page cursors and ETags', () => {
      const secret = 'k'.repeat(32)
      assert.deepEqual(parseServeArgs(['serve', 'api.json'], { FMC_SECRET: secret }), { command: 'serve', file: 'api.json', port: 8000, host: '127.0.0.1', data: undefined, secret })
      assert.throws(
        () => parseServeArgs(['serve', 'api.json'], { FMC_SECRET: 'short' }),
        (error) => error instanceof UsageError && error.message === 'FMC_SECRET must be a secret of at least 32 characters, got one of 5'
      )
    })

    it('refuses a bad port, an unknown command or option, a missing file', () => {
      for (const argv of [['serve', 'a.json', '--port', 'eighty'], ['serve', 'a.json', '--port', '70000'], ['start', 'a.json'], ['serve'], ['serve', 'a.json', '--verbose'], ['serve', 'a.json', 'b.json']]) {
        assert.throws(() => parseServeArgs(argv, {}), UsageError, argv.join(' '))
      }
    })

    it('bad usage: exit code 2, the problem and the usage', async () => {
      const { code, stderr } = await runCli(['serve', file, '--port', 'eighty'])
      assert.equal(code, 2)
      assert.match(stderr, /^fastify-mongo-crud: The port must be an integer from 0 to 65535, got "eighty"\n\nUsage: fastify-mongo-crud serve/)
    })

    it('serve: prints the "listening on" line, answers over HTTP, stops on SIGINT (Ctrl-C) with exit code 0', async () => {
      const cli = await startCli(['serve', file, '--data', join(dir, 'spawned')])
      try {
        assert.match(cli.origin, /^http:\/\/127\.0\.0\.1:\d+$/)
        assert.equal((await fetch(`${cli.origin}/tasks`, { headers: { 'x-user': OWNER } })).status, 200)
      } finally {
        assert.equal(await cli.stop('SIGINT'), 0)
      }
      assert.match(cli.stdout(), /fastify-mongo-crud: stopped/)
    })

    it('a bad file: exit code 1, every error at its line and column, no stack trace', async () => {
      const bad = join(dir, 'bad.json')
      // Two mistakes in one router: the misspelt key is one error (not also a missing 'collection'), and does not hide the misspelt model.
      const text = JSON.stringify({ ...API, routers: { tasks: { ...API.routers.tasks, model: 'Tsk', colection: 'x', collection: undefined } } }, null, 2)
      await writeFile(bad, text)
      const { code, stderr } = await runCli(['check', bad])
      assert.equal(code, 1)
      const lines = stderr.split('\n')
      assert.equal(lines[0], `${bad}: 2 errors`)
      assert.equal(lines[1], `${bad}:${locate(text, '"Tsk"')}: unknown model 'Tsk' (models: Task): did you mean 'Task'? (at /routers/tasks/model)`)
      assert.equal(lines[2], `${bad}:${locate(text, '"colection"')}: unknown key 'colection' in 'tasks': did you mean 'collection'? (at /routers/tasks/colection)`)
      assert.equal(lines.length, 4)
    })
  })
})
