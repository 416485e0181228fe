/**
 * `disableBatch`, `disableGroups`, `disableEvents`: each leaves one of the routes every router gets
 * besides its six out (`<prefix>/_batch`, `<prefix>/_groups`, `<prefix>/_events`), from the routes and
 * from the OpenAPI document, and nothing else; a value that is not a boolean is refused at registration.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDRouter, createApp } from 'fastify-mongo-crud'
import type { App, RouterOptions } from '../harness/app.ts'
import { buildApp, type TestApp } from '../harness/app.ts'
import { User } from '../harness/models.ts'
import { createDoc } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

const memory = storeModes[0]!
const body = { name: 'max', email: 'max@example.com', password: 'pw', city: 'Lyon' }

type Extra = 'disableBatch' | 'disableGroups' | 'disableEvents'

/** Each route, called as a client would, and the status it answers when it is served. */
const CALLS: Record<Extra, { path: string, method: 'get' | 'post', call: (app: App) => Promise<{ statusCode: number, body: string }> }> = {
  disableBatch: { path: '/users/_batch', method: 'post', call: (app) => app.inject({ method: 'POST', url: '/users/_batch', payload: { operations: [{ op: 'create', body }] } }) },
  disableGroups: { path: '/users/_groups', method: 'get', call: (app) => app.inject('/users/_groups?by=city') },
  // A feed never ends: a Last-Event-ID no database issued answers at once (400) where the route is served.
  disableEvents: { path: '/users/_events', method: 'get', call: (app) => app.inject({ url: '/users/_events', headers: { 'last-event-id': 'not-an-event' } }) },
}
const SERVED: Record<Extra, number> = { disableBatch: 200, disableGroups: 200, disableEvents: 400 }
const EXTRAS = Object.keys(CALLS) as Extra[]

for (const disabled of EXTRAS) {
  describe(`${disabled}: true`, () => {
    let t: TestApp
    before(async () => {
      t = await buildApp(memory, { model: User, collectionName: 'users', prefix: '/users', [disabled]: true } as RouterOptions)
      await createDoc(t.app, '/users', body)
    })
    after(() => t.close())

    it('answers 404 there, as any unknown route, and keeps the six routes', async () => {
      const res = await CALLS[disabled].call(t.app)
      assert.equal(res.statusCode, 404, res.body)
      assert.match(JSON.parse(res.body).detail, /^Route (GET|POST) \/users\/_\w+ not found$/)
      assert.equal((await t.app.inject('/users')).statusCode, 200)
    })

    for (const other of EXTRAS.filter((extra) => extra !== disabled)) {
      it(`keeps ${CALLS[other].path}`, async () => {
        const res = await CALLS[other].call(t.app)
        assert.equal(res.statusCode, SERVED[other], res.body)
      })
    }

    it('leaves it out of the OpenAPI document', async () => {
      const spec = (await t.app.inject('/openapi.json')).json()
      assert.equal(spec.paths[CALLS[disabled].path], undefined)
      for (const other of EXTRAS.filter((extra) => extra !== disabled)) assert.notEqual(spec.paths[CALLS[other].path]?.[CALLS[other].method], undefined, other)
    })
  })
}

describe('disableGetAll', () => {
  it('leaves _groups and _events out with the list: 404 as any unknown route, not "Document not found"', async () => {
    const t = await buildApp(memory, { model: User, collectionName: 'users', prefix: '/users', disableGetAll: true })
    try {
      for (const extra of ['disableGroups', 'disableEvents'] as const) {
        const res = await CALLS[extra].call(t.app)
        assert.equal(res.statusCode, 404, res.body)
        assert.match(res.body, /Route GET \/users\/_(groups|events) not found/)
      }
      assert.equal((await CALLS.disableBatch.call(t.app)).statusCode, 200)
    } finally {
      await t.close()
    }
  })
})

describe('disableBatch, disableGroups, disableEvents at registration', () => {
  for (const key of EXTRAS) {
    it(`refuses a ${key} that is not a boolean`, async () => {
      const opened = await memory.open()
      const app = await createApp({ fastify: { logger: false } })
      try {
        await assert.rejects(
          async () => {
            await app.register(CRUDRouter, { model: User, db: opened.db, collectionName: 'users', [key]: 'yes' })
            await app.ready()
          },
          (error: Error & { code?: string }) => error.code === 'FMC_ERR_OPTIONS_INVALID' && error.message.includes(`'${key}' must be a boolean, received "yes"`)
        )
      } finally {
        await app.close()
        await opened.close()
      }
    })
  }
})
