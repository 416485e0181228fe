import assert from 'node:assert/strict'
import { AsyncResource } from 'node:async_hooks'
import { after, before, describe, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, type DriverDb, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { buildApp, buildAppWith, type TestApp } from '../harness/app.ts'
import { ABSENT_ID } from '../harness/expect.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { Address, Author, Message, Person } from '../harness/relations.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'

const Profile = MongoModel('Profile', {
  name: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  address: Type.Optional(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })),
  age: Type.Optional(Type.Integer({ minimum: 0 })),
  secret: Type.Optional(Type.String()),
})
const ProfileOut = MongoModelOut('ProfileOut', {
  name: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  address: Type.Optional(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })),
  age: Type.Optional(Type.Integer()),
})

const MERGE = 'application/merge-patch+json'
const JSON_PATCH = 'application/json-patch+json'
const messages = new CRUDLookup({ model: Message, collectionName: 'pm_messages', prefix: 'messages', localField: '_id', foreignField: 'authorId' })
const addresses = new CRUDEmbed({ model: Address, embedName: 'addresses' })
const ann = { name: 'ann', tags: ['a', 'b'], address: { city: 'Rome', zip: '001' }, age: 30, secret: 's' }

describeEachStore('PATCH media types: merge patch (RFC 7396) and JSON Patch (RFC 6902)', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(
      mode,
      { model: Profile, modelOut: ProfileOut, collectionName: 'pm_profiles', prefix: '/profiles' },
      { model: Author, collectionName: 'pm_authors', prefix: '/authors', lookups: [messages] },
      { model: Person, collectionName: 'pm_people', prefix: '/people', embeds: [addresses] },
    )
  })
  after(() => t.close())

  const patch = (url: string, type: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'PATCH', url, payload: JSON.stringify(payload), headers: { 'content-type': type, ...headers } })
  const stored = async (id: string) => (await t.store.db.collection('pm_profiles').findOne({ _id: (await idOf(id)) as never })) as Json
  const idOf = async (hex: string) => {
    const { ObjectId } = await import('mongodb')
    return new ObjectId(hex)
  }

  it('merge patch: null removes a key, objects merge, arrays replace; hidden fields are kept', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const res = await patch(`/profiles/${doc.id}`, MERGE, { age: null, address: { zip: null, city: 'Oslo' }, tags: ['z'] })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: doc.id, name: 'ann', tags: ['z'], address: { city: 'Oslo' } })
    assert.equal((await stored(doc.id)).secret, 's')
    assert.equal(res.headers.etag, (await t.app.inject({ method: 'GET', url: `/profiles/${doc.id}` })).headers.etag)
  })

  it('JSON Patch: add, remove, replace, move, copy and test, with array indexes and -', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const res = await patch(`/profiles/${doc.id}`, JSON_PATCH, [
      { op: 'test', path: '/name', value: 'ann' },
      { op: 'add', path: '/tags/-', value: 'c' },
      { op: 'add', path: '/tags/0', value: 'first' },
      { op: 'remove', path: '/tags/1' },
      { op: 'replace', path: '/address/city', value: 'Oslo' },
      { op: 'copy', from: '/address/city', path: '/name' },
      { op: 'move', from: '/address/zip', path: '/tags/-' },
    ])
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { id: doc.id, name: 'Oslo', tags: ['first', 'b', 'c', '001'], address: { city: 'Oslo' }, age: 30 })
  })

  it('a failed test is 409 with the index of the operation, and nothing is changed', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const res = await patch(`/profiles/${doc.id}`, JSON_PATCH, [{ op: 'replace', path: '/age', value: 31 }, { op: 'test', path: '/name', value: 'bob' }])
    assert.equal(res.statusCode, 409)
    assert.deepEqual(res.json().detail.map((issue: Json) => [issue.loc, issue.type]), [[['body', 1], 'patch_test_failed']])
    assert.equal((await stored(doc.id)).age, 30)
    const missing = await patch(`/profiles/${doc.id}`, JSON_PATCH, [{ op: 'remove', path: '/tags/5' }])
    assert.equal(missing.statusCode, 409)
  })

  it('a path the model does not declare, a hidden field, or id is 422', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const cases: Array<[string, unknown, (string | number)[]]> = [
      [MERGE, { nope: 1 }, ['body', 'nope']],
      [MERGE, { secret: 'x' }, ['body', 'secret']],
      [MERGE, { id: 'x' }, ['body', 'id']],
      [MERGE, { address: { street: 'x' } }, ['body', 'address', 'street']],
      [JSON_PATCH, [{ op: 'add', path: '/nope', value: 1 }], ['body', 'nope']],
      [JSON_PATCH, [{ op: 'test', path: '/secret', value: 's' }], ['body', 'secret']],
      [JSON_PATCH, [{ op: 'copy', from: '/secret', path: '/name' }], ['body', 'secret']],
      [JSON_PATCH, [{ op: 'remove', path: '/id' }], ['body', 'id']],
    ]
    for (const [type, body, loc] of cases) {
      const res = await patch(`/profiles/${doc.id}`, type, body)
      assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`)
      assert.deepEqual(res.json().detail[0].loc, loc)
    }
    assert.deepEqual(await stored(doc.id), { ...(await stored(doc.id)), name: 'ann', age: 30, secret: 's' })
  })

  it('the patched document is checked against the model: 422 at the field', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const negative = await patch(`/profiles/${doc.id}`, MERGE, { age: -1 })
    assert.equal(negative.statusCode, 422)
    assert.deepEqual(negative.json().detail[0].loc, ['body', 'age'])
    const required = await patch(`/profiles/${doc.id}`, JSON_PATCH, [{ op: 'remove', path: '/name' }])
    assert.equal(required.statusCode, 422)
    assert.deepEqual(required.json().detail[0].loc, ['body', 'name'])
    const malformed = await patch(`/profiles/${doc.id}`, JSON_PATCH, [{ op: 'add', path: '/age' }])
    assert.deepEqual([malformed.statusCode, malformed.json().detail[0].loc], [422, ['body', 0, 'value']])
  })

  it('other media types are 415; If-Match holds for the whole patch', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      assert.equal((await patch(`/profiles/${doc.id}`, type, { age: 1 })).statusCode, 415, type)
    }
    // The patch media types belong to PATCH: a POST in one of them is 415 too.
    assert.equal((await t.app.inject({ method: 'POST', url: '/profiles', payload: JSON.stringify(ann), headers: { 'content-type': MERGE } })).statusCode, 415)
    const stale = await patch(`/profiles/${doc.id}`, MERGE, { age: 1 }, { 'if-match': '"stale"' })
    assert.equal(stale.statusCode, 412)
    const tag = (await t.app.inject({ method: 'GET', url: `/profiles/${doc.id}` })).headers.etag as string
    assert.equal((await patch(`/profiles/${doc.id}`, MERGE, { age: 1 }, { 'if-match': tag })).statusCode, 200)
  })

  it('every PATCH route takes them: a lookup child and an embedded item', async () => {
    const author = await createDoc(t.app, '/authors', { name: 'ann' })
    const message = await createDoc(t.app, `/authors/${author.id}/messages`, { text: 'hi', rank: 1 })
    const child = await patch(`/authors/${author.id}/messages/${message.id}`, MERGE, { rank: null, text: 'ho' })
    assert.deepEqual([child.statusCode, child.json().text, child.json().rank, child.json().authorId], [200, 'ho', undefined, author.id])
    const person = await createDoc(t.app, '/people', { name: 'bob' })
    const address = await createDoc(t.app, `/people/${person.id}/addresses`, { street: 's', city: 'Rome', zip: '1' })
    const item = await patch(`/people/${person.id}/addresses/${address.id}`, JSON_PATCH, [{ op: 'remove', path: '/zip' }, { op: 'replace', path: '/city', value: 'Oslo' }])
    assert.equal(item.statusCode, 200, item.body)
    assert.deepEqual(item.json(), { id: address.id, street: 's', city: 'Oslo' })
    const refused = await patch(`/people/${person.id}/addresses/${address.id}`, JSON_PATCH, [{ op: 'remove', path: '/street' }])
    assert.deepEqual([refused.statusCode, refused.json().detail[0].loc], [422, ['body', 'street']])
  })

  it('a missing document is 422 "Document not updated" on every media type and in a batch; a missing parent is 400', async () => {
    const author = await createDoc(t.app, '/authors', { name: 'ann' })
    const person = await createDoc(t.app, '/people', { name: 'bob' })
    const bodies = (field: string): Array<[string, unknown]> => [
      ['application/json', { [field]: 'x' }],
      [MERGE, { [field]: 'x' }],
      [JSON_PATCH, [{ op: 'replace', path: `/${field}`, value: 'x' }]],
    ]
    const missing: Array<[string, string, number, string]> = [
      [`/profiles/${ABSENT_ID}`, 'name', 422, 'Document not updated'],
      ['/profiles/not-an-id', 'name', 422, 'Document not updated'],
      [`/authors/${author.id}/messages/${ABSENT_ID}`, 'text', 422, 'Document not updated'],
      [`/people/${person.id}/addresses/${ABSENT_ID}`, 'city', 422, 'Document not updated'],
      [`/authors/${ABSENT_ID}/messages/${ABSENT_ID}`, 'text', 400, 'Document not found'],
      [`/people/${ABSENT_ID}/addresses/${ABSENT_ID}`, 'city', 400, 'Document not found'],
    ]
    for (const [url, field, status, detail] of missing) {
      for (const [type, body] of bodies(field)) {
        const res = await patch(url, type, body)
        assert.deepEqual([res.statusCode, res.json()], [status, { detail }], `PATCH ${url} ${type}`)
      }
    }
    const batches: Array<[string, string, string]> = [
      ['/profiles/_batch', ABSENT_ID, 'name'],
      ['/profiles/_batch', 'not-an-id', 'name'],
      [`/authors/${author.id}/messages/_batch`, ABSENT_ID, 'text'],
    ]
    for (const [url, id, field] of batches) {
      for (const [contentType, body] of bodies(field)) {
        const operations = [{ op: 'update', id, contentType, body }]
        const atomic = await t.app.inject({ method: 'POST', url, payload: { operations } })
        assert.deepEqual([atomic.statusCode, atomic.json()], [422, { detail: 'Document not updated', index: 0 }], `${url} ${id} ${contentType}`)
        const loose = await t.app.inject({ method: 'POST', url, payload: { atomic: false, operations } })
        assert.deepEqual(loose.json().results, [{ status: 422, detail: 'Document not updated' }], `${url} ${id} ${contentType}, not atomic`)
      }
    }
  })

  it('in a batch: an update operation with contentType', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const res = await t.app.inject({
      method: 'POST',
      url: '/profiles/_batch',
      payload: {
        operations: [
          { op: 'update', id: doc.id, contentType: MERGE, body: { age: null } },
          { op: 'update', id: doc.id, contentType: JSON_PATCH, body: [{ op: 'add', path: '/tags/-', value: 'c' }] },
        ],
      },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().results[1].body, { id: doc.id, name: 'ann', tags: ['a', 'b', 'c'], address: { city: 'Rome', zip: '001' } })
    const failed = await t.app.inject({ method: 'POST', url: '/profiles/_batch', payload: { operations: [{ op: 'update', id: doc.id, contentType: JSON_PATCH, body: [{ op: 'test', path: '/name', value: 'x' }] }] } })
    assert.equal(failed.statusCode, 409)
    assert.equal(failed.json().index, 0)
  })
})

/**
 * The worst interleaving for a patch, made deterministic: once armed, the first read of a document
 * runs `write` (another client's PATCH) to its end before the read answers. The patch then writes a
 * document computed from a version that is gone: it must see that, and patch the new version.
 */
class WriteAfterRead {
  private write: (() => Promise<unknown>) | undefined
  private times = 0

  /** `times` reads in a row are each followed by `write`. */
  arm(write: () => Promise<unknown>, times = 1): void {
    this.write = times > 0 ? AsyncResource.bind(write) : undefined
    this.times = times
  }

  wrap(db: DriverDb): DriverDb {
    return {
      client: db.client,
      ...interceptCollections(db, async (call, method) => {
        const result = await call()
        if (method === 'findOne' && this.write !== undefined) {
          const write = this.write
          if (--this.times === 0) this.write = undefined
          await write()
        }
        return result
      }),
    }
  }
}

describeEachStore('a patch and a concurrent write: the write is never lost', (mode) => {
  const race = new WriteAfterRead()
  let t: TestApp
  before(async () => {
    t = await buildAppWith(mode, { wrapDb: (db) => race.wrap(db) }, { model: Profile, modelOut: ProfileOut, collectionName: 'pm_race', prefix: '/profiles' })
  })
  after(() => t.close())

  const other = (id: string) => () => t.app.inject({ method: 'PATCH', url: `/profiles/${id}`, payload: { age: 99 } })

  for (const [type, body] of [[MERGE, { name: 'patched' }], [JSON_PATCH, [{ op: 'replace', path: '/name', value: 'patched' }]]] as const) {
    it(`${type}: computed again on the new version`, async () => {
      const doc = await createDoc(t.app, '/profiles', ann)
      race.arm(other(doc.id))
      const res = await t.app.inject({ method: 'PATCH', url: `/profiles/${doc.id}`, payload: JSON.stringify(body), headers: { 'content-type': type } })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual([res.json().name, res.json().age], ['patched', 99])
    })
  }

  it('a document that keeps changing under the patch: 409 asking to send it again, after a few attempts', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    let age = 0
    race.arm(() => t.app.inject({ method: 'PATCH', url: `/profiles/${doc.id}`, payload: { age: ++age } }), 100)
    const res = await t.app.inject({ method: 'PATCH', url: `/profiles/${doc.id}`, payload: JSON.stringify({ name: 'patched' }), headers: { 'content-type': MERGE } })
    race.arm(async () => undefined, 0)
    assert.equal(res.statusCode, 409)
    assert.equal(res.json().detail, 'The document kept changing while the patch was applied: send it again')
    assert.equal((await t.app.inject({ method: 'GET', url: `/profiles/${doc.id}` })).json().name, 'ann')
  })

  it('with If-Match, the version named is the one patched: a write in between is 412', async () => {
    const doc = await createDoc(t.app, '/profiles', ann)
    const tag = (await t.app.inject({ method: 'GET', url: `/profiles/${doc.id}` })).headers.etag as string
    race.arm(other(doc.id))
    const res = await t.app.inject({ method: 'PATCH', url: `/profiles/${doc.id}`, payload: JSON.stringify({ name: 'patched' }), headers: { 'content-type': MERGE, 'if-match': tag } })
    assert.equal(res.statusCode, 412)
    const now = (await t.app.inject({ method: 'GET', url: `/profiles/${doc.id}` })).json()
    assert.deepEqual([now.name, now.age], ['ann', 99])
  })
})

describe('PATCH media types and batches in OpenAPI', () => {
  it('documents the three request media types of every PATCH route, and the batch routes', async () => {
    const t = await buildApp(storeModes[0]!, { model: Author, collectionName: 'pm_doc_authors', prefix: '/authors', lookups: [messages] }, { model: Person, collectionName: 'pm_doc_people', prefix: '/people', embeds: [addresses] })
    try {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const patches = Object.values(spec.paths as Record<string, Json>).flatMap((item) => (item.patch === undefined ? [] : [item.patch]))
      assert.equal(patches.length, 4)
      for (const operation of patches) assert.deepEqual(Object.keys(operation.requestBody.content).sort(), ['application/json', JSON_PATCH, MERGE])
      // The batch routes, each operation typed by its route's body.
      const batch = spec.paths['/authors/_batch'].post
      const nested = spec.paths['/authors/{id}/messages/_batch'].post
      assert.deepEqual([batch.operationId, nested.operationId], ['batchPmDocAuthors', 'batchPmDocAuthorMessages'])
      const operations = batch.requestBody.content['application/json'].schema.properties.operations.items.anyOf as Json[]
      assert.deepEqual(operations.map((operation) => operation.properties.op.enum[0]), ['create', 'replace', 'update', 'update', 'update', 'delete'])
      assert.match(JSON.stringify(operations[0].properties.body), /Author/)
      assert.equal(spec.paths['/people/{id}/addresses/_batch'], undefined)
    } finally {
      await t.close()
    }
  })
})
