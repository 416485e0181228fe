import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, type CrudOperation, createApp, HTTPException } from 'fastify-mongo-crud'
import { User, UserOut } from '../harness/models.ts'
import type { Json } from '../harness/seed.ts'

/**
 * docs/batch.md: a batch operation's guards are called with the `_batch` request itself (what the
 * app's hooks set on it included), and `request.crudOperation` names the operation while they run.
 * Store-independent: the guards run before any store is asked, so one store is enough.
 */
describe('the guards of a batch operation', () => {
  type Seen = { url: string, user: unknown, operation: CrudOperation | undefined }
  const seen: Seen[] = []
  let app: Awaited<ReturnType<typeof createApp>>
  let db: Awaited<ReturnType<typeof openEmbedded>>
  const record = (request: { url: string, user?: unknown, crudOperation?: CrudOperation | undefined }) => {
    seen.push({ url: request.url, user: request.user, operation: request.crudOperation === undefined ? undefined : { ...request.crudOperation } })
  }
  const alice = { name: 'alice', email: 'alice@example.com', password: 'pw' }
  // What the request names as its operation once it was answered.
  let answered: CrudOperation | undefined | 'not yet'

  before(async () => {
    db = await openEmbedded({})
    app = await createApp({ title: 'batch guards', version: '1.0.0', fastify: { logger: false } })
    app.decorateRequest('user', undefined)
    app.addHook('onRequest', async (request) => {
      ;(request as { user?: unknown }).user = { sub: String(request.headers['x-user'] ?? 'nobody') }
    })
    app.addHook('onResponse', async (request) => {
      answered = request.crudOperation
    })
    await app.register(CRUDRouter, {
      model: User,
      modelOut: UserOut,
      db,
      collectionName: 'guarded_users',
      prefix: '/users',
      dependenciesCreateOne: [record],
      dependenciesUpdateOne: [record],
      dependenciesDeleteOne: [
        record,
        (request) => {
          // One guard for both channels: the operation's id, else the route's own.
          const id = request.crudOperation?.id ?? request.params['id']
          if (id === 'ffffffffffffffffffffff01') throw new HTTPException(403, 'This one stays')
        },
      ],
    })
    await app.ready()
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  const send = (method: 'POST' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { 'x-user': 'carol' }, ...(payload === undefined ? {} : { payload: payload as Json }) })

  it('see the _batch request, with what the app hooks set on it, and the operation in request.crudOperation', async () => {
    seen.length = 0
    const created = await send('POST', '/users', alice)
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    const res = await send('POST', '/users/_batch', {
      operations: [
        { op: 'create', body: { ...alice, name: 'bob' } },
        { op: 'update', id, body: [{ op: 'replace', path: '/name', value: 'alicia' }], contentType: 'application/json-patch+json', ifMatch: '"x"' },
        { op: 'delete', id },
      ],
      atomic: false,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      res.json().results.map((result: Json) => result.status),
      [201, 412, 204]
    )
    assert.deepEqual(seen, [
      // The route's own request: its URL is the operation, and no crudOperation is named.
      { url: '/users', user: { sub: 'carol' }, operation: undefined },
      { url: '/users/_batch', user: { sub: 'carol' }, operation: { op: 'create', id: undefined, body: { ...alice, name: 'bob' }, ifMatch: undefined, contentType: 'application/json' } },
      {
        url: '/users/_batch',
        user: { sub: 'carol' },
        operation: { op: 'update', id, body: [{ op: 'replace', path: '/name', value: 'alicia' }], ifMatch: '"x"', contentType: 'application/json-patch+json' },
      },
      { url: '/users/_batch', user: { sub: 'carol' }, operation: { op: 'delete', id, body: undefined, ifMatch: undefined, contentType: 'application/json' } },
    ])
  })

  it('refuse an operation by its id as they refuse its route, and the request names no operation once they are done', async () => {
    const refused = await send('POST', '/users/_batch', { operations: [{ op: 'delete', id: 'ffffffffffffffffffffff01' }] })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.deepEqual(refused.json(), { detail: 'This one stays', index: 0 })
    const alone = await send('DELETE', '/users/ffffffffffffffffffffff01')
    assert.equal(alone.statusCode, 403, alone.body)
    assert.deepEqual(alone.json(), { detail: 'This one stays' })
    // Once its guards are done, the request that carried the operations names none: nothing after
    // them (a hook, the app's error handler) mistakes the last operation for the request.
    answered = 'not yet'
    const res = await send('POST', '/users/_batch', { operations: [{ op: 'create', body: { ...alice, name: 'dave' } }] })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(answered, undefined)
  })
})
