import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { HTTPException } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User, UserOut } from '../harness/models.ts'
import type { Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

describeEachStore('GET /openapi.json', (mode) => {
  let t: TestApp
  let spec: Json
  before(async () => {
    const requireAdmin = async () => {
      throw new HTTPException(403, 'Admin required')
    }
    t = await buildApp(mode, {
      model: User,
      modelOut: UserOut,
      collectionName: 'users',
      prefix: '/users',
      tags: ['users'],
      dependenciesDeleteOne: [requireAdmin],
      dependenciesCreateOne: [requireAdmin],
    })
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.statusCode, 200, res.body)
    spec = res.json()
  })
  after(() => t.close())

  const operation = (path: string, method: string) => {
    const op = spec.paths[path]?.[method]
    assert.ok(op, `${method.toUpperCase()} ${path} is not documented`)
    return op
  }
  const codes = (path: string, method: string) => Object.keys(operation(path, method).responses).sort()

  it('is an OpenAPI 3 document', () => {
    assert.match(spec.openapi, /^3\./)
    assert.equal(spec.info.title, 'HTTP tests')
    assert.equal(spec.info.version, '1.0.0')
  })

  it('lists every generated route', () => {
    const methodsOf = (path: string) => Object.keys(spec.paths[path] ?? {}).filter((key) => key !== 'head').sort()
    assert.deepEqual(methodsOf('/users'), ['get', 'post'])
    assert.deepEqual(methodsOf('/users/{id}'), ['delete', 'get', 'patch', 'put'])
  })

  it('documents the list route with 200, 422 and 503 (the stream cap)', () => {
    assert.deepEqual(codes('/users', 'get'), ['200', '422', '503'])
  })

  it('documents create with 201, 422, 403 (it has a dependency) and 412 (If-None-Match: *)', () => {
    assert.deepEqual(codes('/users', 'post'), ['201', '403', '412', '422'])
  })

  it('documents get one with 200, 304 (If-None-Match), 400 and 422 (fields=)', () => {
    assert.deepEqual(codes('/users/{id}', 'get'), ['200', '304', '400', '422'])
  })

  it('documents replace and update with 200, 412 (If-Match) and 422', () => {
    assert.deepEqual(codes('/users/{id}', 'put'), ['200', '412', '422'])
    assert.deepEqual(codes('/users/{id}', 'patch'), ['200', '412', '422'])
  })

  it('documents delete with 204, 422, 403 (it has a dependency) and 412 (If-Match)', () => {
    assert.deepEqual(codes('/users/{id}', 'delete'), ['204', '403', '412', '422'])
  })

  it("documents the list route's query parameters", () => {
    const params = operation('/users', 'get').parameters as { name: string, in: string }[]
    assert.deepEqual(
      params.filter((p) => p.in === 'query').map((p) => p.name).sort(),
      ['cursor', 'fields', 'filters', 'limit', 'order_by', 'skip', 'sort_by', 'sort_dir'],
    )
  })

  it('documents the item path parameter', () => {
    const params = operation('/users/{id}', 'get').parameters as { name: string, in: string }[]
    assert.deepEqual(params.filter((p) => p.in === 'path').map((p) => p.name), ['id'])
  })

  it('has component schemas named after the models', () => {
    const schemas = spec.components.schemas
    assert.ok(schemas.User, `no User schema in ${Object.keys(schemas)}`)
    assert.ok(schemas.UserOut, `no UserOut schema in ${Object.keys(schemas)}`)
    assert.ok(schemas.User.properties.password, 'User lacks password')
    assert.equal(schemas.UserOut.properties.password, undefined)
    assert.deepEqual(Object.keys(schemas.UserOut.properties).sort(), ['email', 'id', 'name'])
  })

  it('tags every operation with the router tags', () => {
    for (const [path, method] of [
      ['/users', 'get'],
      ['/users', 'post'],
      ['/users/{id}', 'get'],
      ['/users/{id}', 'put'],
      ['/users/{id}', 'patch'],
      ['/users/{id}', 'delete'],
    ] as const) {
      assert.deepEqual(operation(path, method).tags, ['users'])
    }
  })

  it('serves the documentation pages at /docs and /redoc', async () => {
    for (const url of ['/docs', '/redoc']) {
      const res = await t.app.inject({ method: 'GET', url })
      assert.ok(res.statusCode < 400, `${url} answered ${res.statusCode}`)
    }
  })
})
