// The singular in operationIds and summaries comes from an inflection library, `singular` overriding it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDEmbed, CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'
import type { Json } from '../harness/seed.ts'

const Thing = MongoModel('Thing', { name: Type.String() })
const Part = MongoModel('Part', { name: Type.String() })

describe('the singular of a router name', () => {
  let db: EmbeddedDb
  let spec: Json
  let app: Awaited<ReturnType<typeof createApp>>
  const collections = ['movies', 'statuses', 'news', 'series', 'buses', 'users', 'people', 'addresses', 'categories', 'user_profiles', 'analyses']
  before(async () => {
    db = await openEmbedded()
    app = await createApp({ fastify: { logger: false } })
    for (const collectionName of collections) await app.register(CRUDRouter, { model: Thing, db, collectionName, prefix: `/${collectionName}` })
    await app.register(CRUDRouter, { model: Thing, db, collectionName: 'geese', prefix: '/geese', singular: 'gooseling' })
    // A child under a camel-cased name: its last word takes the number.
    await app.register(CRUDRouter, { model: Thing, db, collectionName: 'kits', prefix: '/kits', embeds: [new CRUDEmbed({ model: Part, embedName: 'spare_boxes' })] })
    await app.ready()
    spec = app.swagger() as Json
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  const getOne = (prefix: string) => spec.paths[`/${prefix}/{id}`].get.operationId

  it('is the English singular, irregular and uncountable words included', () => {
    assert.deepEqual(
      collections.map(getOne),
      ['getMovie', 'getStatus', 'getNews', 'getSeries', 'getBus', 'getUser', 'getPerson', 'getAddress', 'getCategory', 'getUserProfile', 'getAnalysis'],
    )
    assert.equal(spec.paths['/movies'].get.operationId, 'listMovies')
    assert.equal(spec.paths['/people/{id}'].get.summary, 'Get one person')
  })

  it('singularizes the last word of a camel-cased name, child names too', () => {
    assert.equal(spec.paths['/kits/{id}/spare_boxes/{embed_id}'].get.operationId, 'getKitSpareBox')
  })

  it('is the `singular` option when given', () => {
    assert.equal(getOne('geese'), 'getGooseling')
  })
})
