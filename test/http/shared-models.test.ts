// One model object in several places of an app (nested in another, embedded, populated, in two
// routers) is one model; only two different models with one name are a setup error.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDEmbed, CRUDPopulate, CRUDRouter, createApp, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type RouterOptions, type TestApp } from '../harness/app.ts'
import { expectBodyValidationError, expectEntryAt } from '../harness/expect.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { storeModes } from '../harness/stores.ts'

// Which models are one is decided at registration: the store does not matter.
const mode = storeModes[0]!

// A default makes the copies the router derives from Post (its PATCH body drops defaults) differ
// from Tag itself: the case where a nested `$id` used to collide at startup.
const Tag = MongoModel('Tag', { label: Type.String(), color: Type.String({ default: 'grey' }) })
const Post = MongoModel('Post', {
  title: Type.String(),
  tags: Type.Array(Tag),
  // TypeBox's Optional copies the schema: still the same model.
  mainTag: Type.Optional(Tag),
  tagIds: Type.Optional(Type.Array(ObjectIdField())),
})
const tagsEmbed = () => new CRUDEmbed({ model: Tag, embedName: 'tags' })

describe('a model nested in another and embedded by the same router', () => {
  let db: EmbeddedDb
  let app: Awaited<ReturnType<typeof createApp>>
  before(async () => {
    db = await openEmbedded()
    app = await createApp({ fastify: { logger: false } })
    await app.register(CRUDRouter, { model: Post, db, collectionName: 'posts', prefix: '/posts', embeds: [tagsEmbed()] })
  })
  after(async () => {
    await app.close()
    await db.close()
  })

  it('starts listening', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('creates, reads, embeds and patches through the shared model', async () => {
    const post = await createDoc(app, '/posts', { title: 'a', tags: [{ label: 'x' }], mainTag: { label: 'main' } })
    assert.deepEqual(post.tags, [{ label: 'x', color: 'grey' }])
    assert.deepEqual(post.mainTag, { label: 'main', color: 'grey' })
    const item = await createDoc(app, `/posts/${post.id}/tags`, { label: 'y' })
    assert.equal(item.color, 'grey')
    assert.deepEqual((await getJson(app, `/posts/${post.id}/tags`)).map((tag: { label: string }) => tag.label), ['x', 'y'])
    const patched = await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, payload: { title: 'b' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().tags.length, 2)
  })

  it('still validates the nested model, locating the error inside it', async () => {
    const res = await app.inject({ method: 'POST', url: '/posts', payload: { title: 'a', tags: [{ color: 'red' }] } })
    expectEntryAt(expectBodyValidationError(res), ['body', 'tags', 0, 'label'])
  })

  it('documents the nested model inline and the embedded one as a component', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    assert.ok(spec.components.schemas.Tag !== undefined)
    assert.equal(spec.components.schemas.Post.properties.tags.items.properties.label.type, 'string')
  })
})

describe('a model nested, embedded, populated and used by two routers', () => {
  let t: TestApp
  before(async () => {
    const posts = (prefix: string): RouterOptions => ({
      model: Post,
      collectionName: 'posts',
      prefix,
      embeds: [tagsEmbed()],
      populates: [new CRUDPopulate({ field: 'tagIds', collection: 'tags', model: Tag })],
    })
    t = await buildApp(mode, { model: Tag, collectionName: 'tags', prefix: '/tags' }, posts('/v1/posts'), posts('/v2/posts'))
  })
  after(() => t.close())

  it('registers, and every router serves the model', async () => {
    const tag = await createDoc(t.app, '/tags', { label: 'kept' })
    const post = await createDoc(t.app, '/v1/posts', { title: 'a', tags: [{ label: 'x' }], tagIds: [tag.id] })
    const read = await getJson(t.app, `/v2/posts/${post.id}`)
    assert.deepEqual(read.tagIds, [{ id: tag.id, label: 'kept', color: 'grey' }])
    assert.deepEqual(read.tags, [{ label: 'x', color: 'grey' }])
    assert.equal((await getJson(t.app, `/v2/posts/${post.id}/tags`)).length, 1)
  })
})

describe('two different models with one name', () => {
  it('refuse registration, naming the name and where each is used', async () => {
    const OtherTag = MongoModel('Tag', { name: Type.String() })
    const error = await buildApp(mode, { model: Post, collectionName: 'posts', prefix: '/posts', embeds: [new CRUDEmbed({ model: OtherTag, embedName: 'tags' })] })
      .then(async (t) => {
        await t.close()
        return undefined
      }, (caught: unknown) => caught as { code: string, message: string })
    assert.ok(error !== undefined, 'registration succeeded')
    assert.equal(error.code, 'FMC_ERR_MODEL_INVALID')
    assert.match(error.message, /'Tag'/)
    assert.match(error.message, /nested in Post/)
    assert.match(error.message, /embed 'tags'/)
  })
})
