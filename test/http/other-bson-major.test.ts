import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { after, before, it } from 'node:test'
import { CRUDEmbed, type DriverDb, MongoModel, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildAppWith, filtersQuery, type TestApp } from '../harness/app.ts'
import { describeEachStore } from '../harness/stores.ts'

/** The app's driver is another major than the router's: its bson refuses the router's ObjectIds. */
const otherDriver = createRequire(import.meta.url)('./fixtures/other-bson-driver.cjs') as {
  Db: new (inner: DriverDb) => DriverDb
}

const Tag = MongoModel('OtherBsonTag', { label: Type.String() })
const Post = MongoModel('OtherBsonPost', { title: Type.String(), author: ObjectIdField() })
const AUTHOR = '64b7f0c2a1b2c3d4e5f60718'

describeEachStore("a db handle from another major of the driver (the app's own mongodb)", (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildAppWith(mode, { wrapDb: (db) => new otherDriver.Db(db) }, {
      model: Post,
      collectionName: 'posts',
      prefix: '/posts',
      embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })],
    })
  })
  after(() => t.close())

  it('creates, reads, lists by an ObjectId field, updates and deletes with the ObjectIds of that driver', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/posts', payload: { title: 'a', author: AUTHOR } })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    assert.match(id, /^[0-9a-f]{24}$/)
    const read = await t.app.inject({ method: 'GET', url: `/posts/${id}` })
    assert.equal(read.statusCode, 200, read.body)
    assert.deepEqual(read.json(), { id, title: 'a', author: AUTHOR })
    const listed = await t.app.inject({ method: 'GET', url: `/posts${filtersQuery({ author: AUTHOR.toUpperCase() })}` })
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(listed.json(), [{ id, title: 'a', author: AUTHOR }])
    const patched = await t.app.inject({ method: 'PATCH', url: `/posts/${id}`, payload: { title: 'b' } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().title, 'b')
    const removed = await t.app.inject({ method: 'DELETE', url: `/posts/${id}` })
    assert.equal(removed.statusCode, 204, removed.body)
  })

  it('adds, lists and reads embedded items with ids of that driver', async () => {
    const post = (await t.app.inject({ method: 'POST', url: '/posts', payload: { title: 'c', author: AUTHOR } })).json()
    const added = await t.app.inject({ method: 'POST', url: `/posts/${post.id}/tags`, payload: { label: 'x' } })
    assert.equal(added.statusCode, 201, added.body)
    const tagId = added.json().id as string
    const listed = await t.app.inject({ method: 'GET', url: `/posts/${post.id}/tags` })
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(listed.json(), [{ id: tagId, label: 'x' }])
    const read = await t.app.inject({ method: 'GET', url: `/posts/${post.id}/tags/${tagId}` })
    assert.equal(read.statusCode, 200, read.body)
  })
})
