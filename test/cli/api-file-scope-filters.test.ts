import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { type JWTPayload, SignJWT } from 'jose'
import type { App } from '../harness/app.ts'
import { EventStreamClient } from '../harness/event-stream.ts'
import { locate } from './locate.ts'

/**
 * docs/api-file.md, Scope: in an API file, client `filters` under a `scope` are ANDed with it by default
 * (the list, `_groups` and `_events`), so they go through the closed grammar and only ever narrow
 * what a caller reaches; `"filters": "ignore"` keeps the Python original's rule (the router option's
 * default in code), where they are not read at all.
 */
const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const key = new TextEncoder().encode(SECRET)
const token = (claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key)

const PROJECT = {
  type: 'object',
  properties: { name: { type: 'string' }, city: { type: 'string' }, budget: { type: 'integer' }, owner: { type: 'string' } },
  required: ['name', 'city', 'owner'],
}

const file = (legacy: Record<string, unknown> = { filters: 'ignore' }) => ({
  auth: { type: 'jwt', secretEnv: 'JWT_SECRET' },
  models: { Project: PROJECT },
  routers: {
    projects: { prefix: '/projects', collection: 'projects', model: 'Project', scope: { field: 'owner', claim: 'sub' } },
    legacy: { prefix: '/legacy', collection: 'projects', model: 'Project', scope: { field: 'owner', claim: 'sub', ...legacy } },
  },
})

const filters = (filter: unknown) => `filters=${encodeURIComponent(JSON.stringify(filter))}`

describe('API file: client filters under a scope are ANDed with it by default', () => {
  let db: EmbeddedDb
  let app: App
  let alice: Record<string, string>
  let bob: Record<string, string>
  const ids: Record<string, string> = {}
  before(async () => {
    db = await openEmbedded()
    const loaded = parseApiFile(JSON.stringify(file(), null, 2), 'api.json')
    app = (await buildApiApp(loaded, db, { env: { JWT_SECRET: SECRET }, fastify: { logger: false } })) as unknown as App
    await app.listen({ port: 0, host: '127.0.0.1' })
    alice = { authorization: `Bearer ${await token({ sub: 'alice' })}` }
    bob = { authorization: `Bearer ${await token({ sub: 'bob' })}` }
    for (const [name, city, budget, headers] of [['a-lyon', 'Lyon', 10, alice], ['a-paris', 'Paris', 20, alice], ['b-lyon', 'Lyon', 30, bob]] as const) {
      const created = await app.inject({ method: 'POST', url: '/projects', headers, payload: { name, city, budget } })
      assert.equal(created.statusCode, 201, created.body)
      ids[name] = created.json().id
    }
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  const names = (body: Array<{ name: string }>) => body.map((doc) => doc.name).sort()

  it('a list answers the documents of the scope that match the filters', async () => {
    const lyon = await app.inject({ url: `/projects?${filters({ city: 'Lyon' })}`, headers: alice })
    assert.equal(lyon.statusCode, 200, lyon.body)
    assert.deepEqual(names(lyon.json()), ['a-lyon'])
    assert.deepEqual(names((await app.inject({ url: '/projects', headers: alice })).json()), ['a-lyon', 'a-paris'])
  })

  it('filters never widen the scope: a filter on the scope field, or an $or around it, reaches no one else', async () => {
    assert.deepEqual((await app.inject({ url: `/projects?${filters({ owner: 'bob' })}`, headers: alice })).json(), [])
    assert.deepEqual(names((await app.inject({ url: `/projects?${filters({ $or: [{ owner: 'bob' }, { city: 'Lyon' }] })}`, headers: alice })).json()), ['a-lyon'])
  })

  it('filters go through the closed grammar: $where and hidden or unknown fields are 422', async () => {
    for (const filter of [{ budget: { $where: '1' } }, { $where: 'true' }, { nosuch: 1 }]) {
      const res = await app.inject({ url: `/projects?${filters(filter)}`, headers: alice })
      assert.equal(res.statusCode, 422, `${JSON.stringify(filter)}: ${res.body}`)
    }
    assert.equal((await app.inject({ url: '/projects?filters=not-json', headers: alice })).statusCode, 422)
  })

  it('_groups groups the documents of the scope that match the filters', async () => {
    const res = await app.inject({ url: `/projects/_groups?by=city&${filters({ budget: { $gte: 5 } })}`, headers: alice })
    assert.equal(res.statusCode, 200, res.body)
    const groups = await app.inject({ url: `/projects/_groups?by=city&${filters({ city: 'Lyon' })}`, headers: alice })
    assert.deepEqual(groups.json().groups ?? groups.json(), [{ city: 'Lyon', count: 1 }])
  })

  it('an _events subscriber for Lyon is not told of its Paris documents', async () => {
    const feed = await EventStreamClient.open(app, `/projects/_events?${filters({ city: 'Lyon' })}`, alice)
    assert.equal(feed.status, 200)
    for (const name of ['a-paris', 'a-lyon']) {
      const res = await app.inject({ method: 'PATCH', url: `/projects/${ids[name]}`, headers: alice, payload: { budget: 99 } })
      assert.equal(res.statusCode, 200, res.body)
    }
    const [event] = await feed.take(1)
    assert.equal(event!.event, 'update')
    assert.equal(event!.data.document.name, 'a-lyon')
    feed.close()
    const refused = await app.inject({ url: `/projects/_events?${filters({ budget: { $where: '1' } })}`, headers: alice })
    assert.equal(refused.statusCode, 422, refused.body)
  })

  it('"filters": "ignore" keeps the original rule: the scope alone, filters not read (and documented so)', async () => {
    assert.deepEqual(names((await app.inject({ url: `/legacy?${filters({ city: 'Lyon' })}`, headers: alice })).json()), ['a-lyon', 'a-paris'])
    assert.equal((await app.inject({ url: `/legacy?${filters({ budget: { $where: '1' } })}`, headers: alice })).statusCode, 200)
    const spec = (await app.inject('/openapi.json')).json()
    const filtersOf = (path: string) => spec.paths[path].get.parameters.find((parameter: { name: string }) => parameter.name === 'filters')
    assert.match(JSON.stringify(filtersOf('/legacy')), /Ignored on this list/)
    assert.doesNotMatch(JSON.stringify(filtersOf('/projects')), /Ignored on this list/)
  })
})

describe('check: the scope\'s filters key', () => {
  it('takes "and" and "ignore", and reports another value at its line and column', async () => {
    await verifyApiFile(JSON.stringify(file({ filters: 'and' }), null, 2), 'api.json')
    await verifyApiFile(JSON.stringify(file({ filters: 'ignore' }), null, 2), 'api.json')
    const text = JSON.stringify(file({ filters: 'AND' }), null, 2)
    await assert.rejects(verifyApiFile(text, 'api.json'), (error: Error) => {
      assert.ok(error instanceof ApiFileError, String(error))
      assert.equal(error.issues.length, 1, error.message)
      const [issue] = error.issues
      assert.equal(`${issue!.line}:${issue!.column}`, locate(text, '"AND"'))
      assert.equal(issue!.pointer, '/routers/legacy/scope/filters')
      assert.match(issue!.message, /"ignore", "and"|'ignore'|ignore/)
      return true
    })
  })
})
