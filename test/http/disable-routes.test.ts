import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { App, RouterOptions } from '../harness/app.ts'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

type RouteName = 'getAll' | 'getOne' | 'createOne' | 'replaceOne' | 'updateOne' | 'deleteOne'

const routes: RouteName[] = ['getAll', 'getOne', 'createOne', 'replaceOne', 'updateOne', 'deleteOne']

const disableOption: Record<RouteName, keyof RouterOptions> = {
  getAll: 'disableGetAll',
  getOne: 'disableGetOne',
  createOne: 'disableCreateOne',
  replaceOne: 'disableReplaceOne',
  updateOne: 'disableUpdateOne',
  deleteOne: 'disableDeleteOne',
}

const body = { name: 'max', email: 'max@example.com', password: 'pw' }

/** Calls `route` on an existing document `id`. */
function call(app: App, route: RouteName, id: string) {
  switch (route) {
    case 'getAll':
      return app.inject({ method: 'GET', url: '/users' })
    case 'getOne':
      return app.inject({ method: 'GET', url: `/users/${id}` })
    case 'createOne':
      return app.inject({ method: 'POST', url: '/users', payload: body })
    case 'replaceOne':
      return app.inject({ method: 'PUT', url: `/users/${id}`, payload: body })
    case 'updateOne':
      return app.inject({ method: 'PATCH', url: `/users/${id}`, payload: { age: 3 } })
    case 'deleteOne':
      return app.inject({ method: 'DELETE', url: `/users/${id}` })
  }
}

const successStatus: Record<RouteName, number> = {
  getAll: 200,
  getOne: 200,
  createOne: 201,
  replaceOne: 200,
  updateOne: 200,
  deleteOne: 204,
}

for (const disabled of routes) {
  describeEachStore(`${disableOption[disabled]}: true`, (mode) => {
    let t: TestApp
    let seedId: string
    before(async () => {
      t = await buildApp(
        mode,
        // a second router over the same collection, with every route, to seed documents when create is disabled
        { model: User, collectionName: 'users', prefix: '/seed' },
        { model: User, collectionName: 'users', prefix: '/users', [disableOption[disabled]]: true },
      )
      seedId = (await createDoc(t.app, '/seed', body)).id
    })
    after(() => t.close())

    it(`removes the ${disabled} route (404 with a detail, and nothing changes)`, async () => {
      const before = await getJson(t.app, '/seed')
      const res = await call(t.app, disabled, seedId)
      assert.equal(res.statusCode, 404, res.body)
      assert.equal(typeof res.json().detail, 'string', res.body)
      assert.deepEqual(await getJson(t.app, '/seed'), before)
    })

    for (const other of routes.filter((route) => route !== disabled)) {
      it(`keeps the ${other} route`, async () => {
        const id = (await createDoc(t.app, '/seed', body)).id
        const res = await call(t.app, other, id)
        assert.equal(res.statusCode, successStatus[other], res.body)
      })
    }

    it('leaves the disabled route out of the OpenAPI document', async () => {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const method = { getAll: 'get', getOne: 'get', createOne: 'post', replaceOne: 'put', updateOne: 'patch', deleteOne: 'delete' }[disabled]
      const path = disabled === 'getAll' || disabled === 'createOne' ? '/users' : '/users/{id}'
      assert.equal(spec.paths[path]?.[method], undefined)
      assert.notEqual(spec.paths['/seed']?.get, undefined)
    })
  })
}
