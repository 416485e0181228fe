/**
 * docs/api-file.md, "What every router gets besides CRUD": `_batch`, `_groups` and `_events` on every
 * router of a file, the `disable` names that leave each out, `limits.maxBatchOperations`, and the
 * embedded engine's `database.changeRetention`, through `check`, `serve` and HTTP.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import type { App } from '../harness/app.ts'
import { startCli } from '../harness/cli.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { locate } from './locate.ts'

const TODO = { type: 'object', properties: { title: { type: 'string' }, done: { type: 'boolean' } }, required: ['title'] }
const NOTE = { type: 'object', properties: { text: { type: 'string' }, todoId: { type: 'string', format: 'objectid' } }, required: ['text', 'todoId'] }
const STEP = { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] }

const api = () => ({
  limits: { maxBatchOperations: 3 },
  models: { Todo: TODO, Note: NOTE, Step: STEP },
  routers: {
    todos: {
      prefix: '/todos',
      collection: 'todos',
      model: 'Todo',
      lookups: [{ prefix: 'notes', collection: 'notes', model: 'Note', foreignField: 'todoId' }],
      embeds: [{ name: 'steps', model: 'Step' }],
    },
    quiet: { prefix: '/quiet', collection: 'todos', model: 'Todo', disable: ['batch', 'groups', 'events'] },
    small: { prefix: '/small', collection: 'todos', model: 'Todo', limits: { maxBatchOperations: 1 } },
    guarded: {
      prefix: '/guarded',
      collection: 'todos',
      model: 'Todo',
      guards: { getAll: [{ header: 'x-role', equals: 'reader' }], createOne: [{ header: 'x-role', equals: 'writer' }] },
    },
  },
})
const text = (file: unknown) => JSON.stringify(file, null, 2)

const creates = (count: number) => ({ operations: Array.from({ length: count }, (_, index) => ({ op: 'create', body: { title: `t${index}` } })) })

/** What `check` reports on a text, as `line:column message (pointer)`; [] when it passes. */
async function checkIssues(source: string): Promise<string[]> {
  try {
    await verifyApiFile(source, 'api.json')
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
  return []
}

describe('every router of an API file gets _batch, _groups and _events', () => {
  let db: EmbeddedDb
  let app: App
  before(async () => {
    db = await openEmbedded()
    app = (await buildApiApp(parseApiFile(text(api())), db, { fastify: { logger: false } })) as unknown as App
    await app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  it('check passes a file whose disable lists batch, groups and events', async () => {
    assert.deepEqual(await checkIssues(text(api())), [])
  })

  it('POST <prefix>/_batch: several writes in one request, at most limits.maxBatchOperations (the file\'s, or the router\'s own)', async () => {
    const done = await app.inject({ method: 'POST', url: '/todos/_batch', payload: creates(3) })
    assert.equal(done.statusCode, 200, done.body)
    assert.deepEqual(done.json().results.map((result: { status: number }) => result.status), [201, 201, 201])
    const tooMany = await app.inject({ method: 'POST', url: '/todos/_batch', payload: creates(4) })
    assert.equal(tooMany.statusCode, 422, tooMany.body)
    assert.equal((await app.inject({ method: 'POST', url: '/small/_batch', payload: creates(2) })).statusCode, 422)
    assert.equal((await app.inject({ method: 'POST', url: '/small/_batch', payload: creates(1) })).statusCode, 200)
  })

  it('GET <prefix>/_groups: the documents grouped and counted', async () => {
    const res = await app.inject('/todos/_groups?by=title&metrics=count')
    assert.equal(res.statusCode, 200, res.body)
    // t0 twice: a batch of /todos and one of /small, a router over the same collection.
    assert.deepEqual(res.json().slice(0, 2), [{ title: 't0', count: 2 }, { title: 't1', count: 1 }])
  })

  it('GET <prefix>/_events: the changes, live; a change to an embedded item arrives as an update of its parent', async () => {
    const feed = await EventStreamClient.open(app, '/todos/_events')
    try {
      assert.equal(feed.status, 200)
      const todo = (await app.inject({ method: 'POST', url: '/todos', payload: { title: 'watched' } })).json()
      await app.inject({ method: 'POST', url: `/todos/${todo.id}/steps`, payload: { label: 'first' } })
      const [created, updated] = await feed.take(2)
      assert.equal(created!.event, 'create')
      assert.equal(updated!.event, 'update')
      assert.equal(updated!.data.id, todo.id)
      assert.equal(updated!.data.document.title, 'watched')
    } finally {
      feed.close()
    }
  })

  it('disable: batch, groups, events leave each out: 404 as any unknown route, and absent from /openapi.json', async () => {
    const refused = [
      await app.inject({ method: 'POST', url: '/quiet/_batch', payload: creates(1) }),
      await app.inject('/quiet/_groups?by=title'),
      await app.inject('/quiet/_events'),
    ]
    assert.deepEqual(refused.map((res) => res.statusCode), [404, 404, 404])
    assert.equal((await app.inject('/quiet')).statusCode, 200)
    const paths = Object.keys((await app.inject('/openapi.json')).json().paths as object)
    for (const path of ['/todos/_batch', '/todos/_groups', '/todos/_events']) assert.ok(paths.includes(path), path)
    assert.deepEqual(paths.filter((path) => path.startsWith('/quiet/_')), [])
  })

  it('each runs the guards of the routes it stands for: _groups and _events the list\'s, a batch operation its route\'s', async () => {
    const reader = { 'x-role': 'reader' }
    assert.equal((await app.inject('/guarded/_groups?by=title')).statusCode, 403)
    assert.equal((await app.inject({ url: '/guarded/_groups?by=title', headers: reader })).statusCode, 200)
    assert.equal((await app.inject('/guarded/_events')).statusCode, 403)
    const batch = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/guarded/_batch', headers, payload: creates(1) })
    assert.equal((await batch(reader)).statusCode, 403)
    assert.equal((await batch({ 'x-role': 'writer' })).statusCode, 200)
  })

  it("a lookup's children have _batch and _groups, and no _events", async () => {
    const paths = Object.keys((await app.inject('/openapi.json')).json().paths as object)
    assert.deepEqual(paths.filter((path) => path.startsWith('/todos/{id}/notes/_')).sort(), ['/todos/{id}/notes/_batch', '/todos/{id}/notes/_groups'])
    assert.deepEqual(paths.filter((path) => path.startsWith('/todos/{id}/steps/_')), ['/todos/{id}/steps/_groups'])
    const todo = (await app.inject({ method: 'POST', url: '/todos', payload: { title: 'parent' } })).json()
    const res = await app.inject(`/todos/${todo.id}/notes/_events`)
    assert.notEqual(res.statusCode, 200)
    assert.doesNotMatch(String(res.headers['content-type']), /event-stream/)
  })

  it("check: a misspelt name in disable gets the closest; a lookup's disable takes the six route names only", async () => {
    const file = api()
    file.routers.quiet.disable = ['batch', 'evnts']
    ;(file.routers.todos.lookups[0] as Record<string, unknown>)['disable'] = ['groups']
    const t = text(file)
    const issues = await checkIssues(t)
    assert.deepEqual(issues, [
      `${locate(t, '"groups"')} '0' must be one of "getAll", "getOne", "createOne", "replaceOne", "updateOne", "deleteOne" (/routers/todos/lookups/0/disable/0)`,
      `${locate(t, '"evnts"')} '1' must be one of "getAll", "getOne", "createOne", "replaceOne", "updateOne", "deleteOne", "batch", "groups", "events": did you mean 'events'? (/routers/quiet/disable/1)`,
    ])
  })
})

describe('database.changeRetention: how much of the change log the embedded engine keeps', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-retention-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('check refuses it for MongoDB, where the oplog decides', async () => {
    const file = { ...api(), database: { engine: 'mongodb', changeRetention: { events: 10 } } }
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [`${locate(t, '{', locate(t, '"changeRetention"'))} 'changeRetention' applies to the embedded engine only (/database/changeRetention)`])
    assert.deepEqual(await checkIssues(text({ ...api(), database: { engine: 'embedded', changeRetention: { events: 10, ms: 60000 } } })), [])
  })

  /** Where the engine keeps the data: the file's path, --data, FMC_DATA_DIR. */
  const places = [
    { name: "the file's path", database: { path: 'file-data' }, args: [], env: {} },
    { name: '--data', database: {}, args: ['--data', 'flag-data'], env: {} },
    { name: 'FMC_DATA_DIR', database: {}, args: [], env: { FMC_DATA_DIR: 'env-data' } },
  ]
  for (const place of places) {
    it(`serve keeps the last \`events\` changes (data at ${place.name}): a Last-Event-ID older than them is 410`, async () => {
      const file = join(dir, 'api.json')
      await writeFile(file, text({ ...api(), database: { engine: 'embedded', ...place.database, changeRetention: { events: 2 } } }))
      const served = await startCli(['serve', file, ...place.args], place.env, dir)
      try {
        assert.match(served.stdout(), /embedded engine, data in \//)
        await expectRetention(served.origin)
      } finally {
        await served.stop()
      }
    })
  }

  /** Two changes kept: the first of four is no longer there to resume from. */
  async function expectRetention(origin: string): Promise<void> {
    // EventStreamClient reads a served app's port; the command's is in its origin.
    const port = Number(new URL(origin).port)
    const listening = { server: { address: (): AddressInfo => ({ port, address: '127.0.0.1', family: 'IPv4' }) } } as unknown as App
    const feed = await EventStreamClient.open(listening, '/todos/_events')
    const post = (title: string) => fetch(`${origin}/todos`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) })
    await post('old')
    const [old] = await feed.take(1)
    feed.close()
    for (const title of ['n1', 'n2', 'n3']) assert.equal((await post(title)).status, 201)
    const gone = await fetch(`${origin}/todos/_events`, { headers: { 'last-event-id': old!.id } })
    assert.equal(gone.status, 410, await gone.text())
  }
})
