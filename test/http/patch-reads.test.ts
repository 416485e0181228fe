import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { TestApp } from '../harness/app.ts'
import { interceptCollections } from '../harness/intercept-collections.ts'
import { User } from '../harness/models.ts'
import { buildRelationsApp } from '../harness/relations.ts'
import { createDoc } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

/**
 * A merge patch or JSON Patch reads the document once per attempt and writes it guarded by the
 * version it read (compare-and-swap): the version travels with the write, which reads nothing again,
 * with or without `If-Match` (docs/patch.md). Counted at the collection's methods; one store is
 * enough, the routes call the same methods on every store.
 */
describe('a patch reads its document once', () => {
  const calls: string[] = []
  let t: TestApp
  before(async () => {
    const wrapDb = (db: Parameters<typeof interceptCollections>[0]) => ({
      client: db.client,
      ...interceptCollections(db, (call, method) => {
        calls.push(method)
        return call()
      }),
    })
    t = await buildRelationsApp(storeModes[0]!, { wrapDb }, { model: User, collectionName: 'patch_reads', prefix: '/users' })
  })
  after(() => t.close())

  const reads = () => calls.filter((method) => /^(find|findOne|aggregate|countDocuments|estimatedDocumentCount)$/.test(method))
  const writes = () => calls.filter((method) => /^(replace|update|insert|delete|findOneAndReplace|findOneAndUpdate)/.test(method))

  for (const [type, body] of [['application/json-patch+json', [{ op: 'add', path: '/city', value: 'Lyon' }]], ['application/merge-patch+json', { city: 'Nice' }]] as const) {
    it(`${type}: one read and one write, with or without If-Match`, async () => {
      const doc = await createDoc(t.app, '/users', { name: 'hal', email: 'hal@example.com', password: 'pw' })
      for (const withTag of [false, true]) {
        const tag = (await t.app.inject({ method: 'GET', url: `/users/${doc.id}` })).headers.etag as string
        const headers = withTag ? { 'if-match': tag } : {}
        calls.length = 0
        const res = await t.app.inject({ method: 'PATCH', url: `/users/${doc.id}`, headers: { 'content-type': type, ...headers }, payload: JSON.stringify(body) })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(reads().length, 1, `reads: ${reads().join(', ')}`)
        assert.equal(writes().length, 1, `writes: ${writes().join(', ')}`)
      }
    })
  }
})
