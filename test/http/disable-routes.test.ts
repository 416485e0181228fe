import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { App, RouterOptions } from '../harness/app.ts'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc } from '../harness/seed.ts'
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

/** Calls `route` on an existing document `id`; answers its status code. */
async function call(app: App, route: RouteName, id: string): Promise<number> {
  switch (route) {
    case 'getAll':
      return (await app.inject({ method: 'GET', url: '/users' })).statusCode
    case 'getOne':
      return (await app.inject({ method: 'GET', url: `/users/${id}` })).statusCode
    case 'createOne':
      return (await app.inject({ method: 'POST', url: '/users', payload: body })).statusCode
    case 'replaceOne':
      return (await app.inject({ method: 'PUT', url: `/users/${id}`, payload: body })).statusCode
    case 'updateOne':
      return (await app.inject({ method: 'PATCH', url: `/users/${id}`, payload: { age: 3 } })).statusCode
    case 'deleteOne':
      return (await app.inject({ method: 'DELETE', url: `/users/${id}` })).statusCode
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

    it(`removes the ${disabled} route (404 from the router)`, async () => {
      assert.equal(await call(t.app, disabled, seedId), 404)
    })

    for (const other of routes.filter((route) => route !== disabled)) {
      it(`keeps the ${other} route`, async () => {
        const id = (await createDoc(t.app, '/seed', body)).id
        assert.equal(await call(t.app, other, id), successStatus[other])
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
