// operationIds, summaries and list parameters as the router's options make them (issue 12, item 8).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDEmbed, CRUDRouter, createApp, MongoModel, SetupError, securedBy, Type } from 'fastify-mongo-crud'
import type { Json } from '../harness/seed.ts'

const Person = MongoModel('Person', { name: Type.String(), address: Type.Object({ city: Type.String() }) })
const Tag = MongoModel('Tag', { label: Type.String() })
const Thing = MongoModel('Thing', { name: Type.String(), meta: Type.Object({}, { additionalProperties: true }) })

describe('operationIds and list parameters follow the router options', () => {
  let db: EmbeddedDb
  let spec: Json
  let app: Awaited<ReturnType<typeof createApp>>
  before(async () => {
    db = await openEmbedded()
    app = await createApp({ fastify: { logger: false }, openapi: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, servers: [{ url: 'https://api.example.test' }] } })
    const guard = securedBy({ bearer: ['read'] }, async () => {})
    await app.register(CRUDRouter, { model: Person, db, collectionName: 'people', prefix: '/people', name: 'people', singular: 'person', maxLimit: 50, maxSkip: 1000, defaultLimit: 10, dependenciesGetOne: [guard], embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })] })
    await app.register(CRUDRouter, { model: Thing, db, collectionName: 'things', prefix: '/things' })
    // The same collection twice without a name: the second router takes its prefix's name.
    await app.register(CRUDRouter, { model: Person, db, collectionName: 'people', prefix: '/v2/people', singular: 'person', sortable: ['name'] })
    // And a third time on a prefix giving no new name: numbered.
    await app.register(CRUDRouter, { model: Person, db, collectionName: 'people', prefix: '/people_' })
    await app.ready()
    spec = app.swagger() as Json
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  it('takes name and singular from the options', () => {
    assert.equal(spec.paths['/people'].get.operationId, 'listPeople')
    assert.equal(spec.paths['/people/{id}'].get.operationId, 'getPerson')
    assert.equal(spec.paths['/people/{id}'].get.summary, 'Get one person')
  })

  it('names a second router of one collection after its prefix, a third by number', () => {
    assert.equal(spec.paths['/v2/people'].get.operationId, 'listV2People')
    assert.equal(spec.paths['/v2/people/{id}'].delete.operationId, 'deleteV2Person')
    assert.equal(spec.paths['/people_'].get.operationId, 'listPeople2')
    assert.equal(spec.paths['/people_/{id}'].get.operationId, 'getPerson2') // no `singular`: inflected
  })

  it('puts a securedBy requirement (with its scopes) on the routes running the dependency, and takes servers from the options', () => {
    assert.deepEqual(spec.paths['/people/{id}'].get.security, [{ bearer: ['read'] }])
    assert.equal(spec.paths['/people/{id}'].put.security, undefined)
    // Embed routes run the parent's GetOne dependencies: they carry its requirement too.
    assert.deepEqual(spec.paths['/people/{id}/tags'].get.security, [{ bearer: ['read'] }])
    assert.equal(spec.paths['/people/{id}/tags'].get.operationId, 'listPersonTags')
    assert.deepEqual(spec.components.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } })
    assert.deepEqual(spec.servers, [{ url: 'https://api.example.test' }])
  })

  it("documents skip and limit with the router's maxima and default, sort_by with the sortable paths", () => {
    const params = spec.paths['/people'].get.parameters as Array<{ name: string, schema: Json }>
    const schema = (name: string) => params.find((p) => p.name === name)!.schema
    assert.deepEqual(schema('skip'), { type: 'integer', minimum: 0, maximum: 1000 })
    assert.deepEqual(schema('limit'), { type: 'integer', minimum: 1, maximum: 50, default: 10 })
    assert.deepEqual(schema('sort_by').enum, ['id', 'name', 'address.city'])
    // An open object accepts any path below it: no enum then.
    const things = spec.paths['/things'].get.parameters as Array<{ name: string, schema: Json }>
    assert.deepEqual(things.find((p) => p.name === 'sort_by')!.schema, { type: 'string' })
    const v2 = spec.paths['/v2/people'].get.parameters as Array<{ name: string, schema: Json }>
    assert.deepEqual(v2.find((p) => p.name === 'sort_by')!.schema.enum, ['name'])
  })

  it('validates as before: limit above maxLimit and an unsortable field get the same 422', async () => {
    const over = await app.inject({ method: 'GET', url: '/people?limit=51' })
    assert.deepEqual([over.statusCode, over.json()], [422, { detail: 'limit must be at most 50' }])
    const unsortable = await app.inject({ method: 'GET', url: '/v2/people?sort_by=address.city' })
    assert.deepEqual([unsortable.statusCode, unsortable.json()], [422, { detail: 'sort_by: field "address.city" is not sortable' }])
  })

  it('refuses a name another router of the app took', async () => {
    const other = await createApp({ fastify: { logger: false } })
    await other.register(CRUDRouter, { model: Person, db, collectionName: 'people', prefix: '/a', name: 'people' })
    await assert.rejects(
      async () => {
        await other.register(CRUDRouter, { model: Person, db, collectionName: 'persons', prefix: '/b', name: 'people' })
        await other.ready()
      },
      (error) => error instanceof SetupError && /operationId 'listPeople' is already taken by '\/a'/.test(error.message)
    )
    await other.close()
  })
})
