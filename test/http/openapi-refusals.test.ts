import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { buildApp, type TestApp } from '../harness/app.ts'
import { Note } from '../harness/models.ts'
import type { Json } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

/** The OpenAPI document shows the refusals a router can answer: 403 of scoped writes, 503 of time limits and stream caps. */
describe('OpenAPI documents 403 and 503 where the router can answer them', () => {
  let t: TestApp
  let paths: Json
  before(async () => {
    t = await buildApp(
      storeModes[0]!,
      { model: Note, collectionName: 'notes', prefix: '/scoped', maxTimeMS: 500, filterDependency: async (request: FastifyRequest) => ({ owner: request.headers['x-user'] }) },
      { model: Note, collectionName: 'notes', prefix: '/plain' }
    )
    paths = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths
  })
  after(() => t.close())

  it('shows 403 on the writes a scope checks, and not elsewhere', () => {
    assert.ok(paths['/scoped'].post.responses['403'])
    assert.ok(paths['/scoped/{id}'].put.responses['403'])
    assert.ok(paths['/scoped/{id}'].patch.responses['403'])
    assert.equal(paths['/scoped/{id}'].get.responses['403'], undefined)
    assert.equal(paths['/plain'].post.responses['403'], undefined)
  })

  it('shows 503 on routes that run a query under maxTimeMS, and on every list (stream cap)', () => {
    for (const [path, method] of [['/scoped', 'get'], ['/scoped/{id}', 'get'], ['/scoped/{id}', 'put'], ['/scoped/{id}', 'patch'], ['/scoped/{id}', 'delete'], ['/plain', 'get']] as const) {
      assert.ok(paths[path][method].responses['503'], `${method} ${path} lacks 503`)
    }
    assert.equal(paths['/scoped'].post.responses['503'], undefined)
    assert.equal(paths['/plain/{id}'].get.responses['503'], undefined)
  })
})
