import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { HTTPException } from 'fastify-mongo-crud'
import type { App, RouterOptions } from '../harness/app.ts'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson, namesOf } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

type RouteName = 'getAll' | 'getOne' | 'createOne' | 'replaceOne' | 'updateOne' | 'deleteOne'

const routes: RouteName[] = ['getAll', 'getOne', 'createOne', 'replaceOne', 'updateOne', 'deleteOne']

const dependencyOption: Record<RouteName, keyof RouterOptions> = {
  getAll: 'dependenciesGetAll',
  getOne: 'dependenciesGetOne',
  createOne: 'dependenciesCreateOne',
  replaceOne: 'dependenciesReplaceOne',
  updateOne: 'dependenciesUpdateOne',
  deleteOne: 'dependenciesDeleteOne',
}

const successStatus: Record<RouteName, number> = {
  getAll: 200,
  getOne: 200,
  createOne: 201,
  replaceOne: 200,
  updateOne: 200,
  deleteOne: 204,
}

const original = { name: 'nia', email: 'nia@example.com', password: 'pw', age: 20 }

async function call(app: App, route: RouteName, id: string, headers: Record<string, string>) {
  switch (route) {
    case 'getAll':
      return app.inject({ method: 'GET', url: '/users', headers })
    case 'getOne':
      return app.inject({ method: 'GET', url: `/users/${id}`, headers })
    case 'createOne':
      return app.inject({ method: 'POST', url: '/users', headers, payload: { ...original, name: 'created' } })
    case 'replaceOne':
      return app.inject({ method: 'PUT', url: `/users/${id}`, headers, payload: { ...original, name: 'replaced' } })
    case 'updateOne':
      return app.inject({ method: 'PATCH', url: `/users/${id}`, headers, payload: { name: 'updated' } })
    case 'deleteOne':
      return app.inject({ method: 'DELETE', url: `/users/${id}`, headers })
  }
}

for (const guarded of routes) {
  describeEachStore(`${dependencyOption[guarded]}`, (mode) => {
    let t: TestApp
    const calls: string[] = []
    before(async () => {
      const requireAdmin = async (request: FastifyRequest) => {
        calls.push(`${request.method} ${request.url}`)
        if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
      }
      t = await buildApp(
        mode,
        { model: User, collectionName: 'users', prefix: '/seed' },
        { model: User, collectionName: 'users', prefix: '/users', [dependencyOption[guarded]]: [requireAdmin] },
      )
    })
    after(() => t.close())

    it(`answers 403 { detail: 'Admin required' } on ${guarded} when the dependency refuses, and changes nothing`, async () => {
      const doc = await createDoc(t.app, '/seed', original)
      const before = namesOf(await getJson(t.app, '/seed'))
      expectDetail(await call(t.app, guarded, doc.id, {}), 403, 'Admin required')
      assert.deepEqual(await getJson(t.app, `/seed/${doc.id}`), doc)
      assert.deepEqual(namesOf(await getJson(t.app, '/seed')), before)
    })

    it(`runs ${guarded} when the dependency lets the request through`, async () => {
      const doc = await createDoc(t.app, '/seed', original)
      const count = calls.length
      const res = await call(t.app, guarded, doc.id, { 'x-role': 'admin' })
      assert.equal(res.statusCode, successStatus[guarded], res.body)
      assert.equal(calls.length, count + 1)
    })

    for (const other of routes.filter((route) => route !== guarded)) {
      it(`does not run on ${other}`, async () => {
        const doc = await createDoc(t.app, '/seed', original)
        const count = calls.length
        const res = await call(t.app, other, doc.id, {})
        assert.equal(res.statusCode, successStatus[other], res.body)
        assert.equal(calls.length, count, `the ${guarded} dependency ran on ${other}`)
      })
    }
  })
}

describeEachStore('a dependency throwing an error with a 4xx statusCode', (mode) => {
  let t: TestApp
  before(async () => {
    const limit = async () => {
      throw Object.assign(new Error('Slow down'), { statusCode: 429 })
    }
    t = await buildApp(mode, { model: User, collectionName: 'users', prefix: '/users', dependenciesCreateOne: [limit] })
  })
  after(() => t.close())

  it('answers that status with { detail: message }, and writes nothing', async () => {
    expectDetail(await t.app.inject({ method: 'POST', url: '/users', payload: original }), 429, 'Slow down')
    assert.deepEqual(await getJson(t.app, '/users'), [])
  })
})

describeEachStore('several dependencies on one route', (mode) => {
  let t: TestApp
  const order: string[] = []
  before(async () => {
    t = await buildApp(mode, {
      model: User,
      collectionName: 'users',
      prefix: '/users',
      dependenciesGetAll: [
        async () => {
          order.push('first')
        },
        async (request: FastifyRequest) => {
          order.push('second')
          if (request.headers['x-role'] !== 'admin') throw new HTTPException(403, 'Admin required')
        },
      ],
    })
  })
  after(() => t.close())

  it('runs all of them, in order, before the route', async () => {
    expectDetail(await t.app.inject({ method: 'GET', url: '/users' }), 403, 'Admin required')
    assert.deepEqual(order, ['first', 'second'])
    const res = await t.app.inject({ method: 'GET', url: '/users', headers: { 'x-role': 'admin' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(order, ['first', 'second', 'first', 'second'])
  })
})
