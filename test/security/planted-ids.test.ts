import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { CRUDEmbed, type DriverDb, MongoModel, Type } from 'fastify-mongo-crud'
import { ObjectId } from 'mongodb'
import { buildApp, buildAppWith, type TestApp } from '../harness/app.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

/**
 * Ids the server chooses must never collide with ids clients chose: a client that plants documents
 * at the ids the server will hand out next must not make other clients' creates fail.
 */
const Item = MongoModel('Item', { name: Type.String() })
const Tag = MongoModel('Tag', { label: Type.String() })

/** The ids a counter-based generator would hand out after `last`, this second and the next two. */
function nextIds(last: string, count: number): string[] {
  const bytes = Buffer.from(last, 'hex')
  const seconds = bytes.readUInt32BE(0)
  const counter = bytes.readUIntBE(9, 3)
  const ids: string[] = []
  for (const second of [seconds, seconds + 1, seconds + 2]) {
    for (let step = 1; step <= count; step++) {
      const next = Buffer.from(bytes)
      next.writeUInt32BE(second, 0)
      next.writeUIntBE((counter + step) % 0x1000000, 9, 3)
      ids.push(next.toString('hex'))
    }
  }
  return ids
}

describeEachStore('server-chosen ids cannot be planted', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items', embeds: [new CRUDEmbed({ model: Tag, embedName: 'tags' })] })
  })
  after(() => t.close())

  it('creates a document although the ids after the last one are taken', async () => {
    const last = await createDoc(t.app, '/items', { name: 'first' })
    // The attacker reads an id, then plants documents at the ids a counter would hand out next.
    const probe = new ObjectId().toHexString()
    for (const id of [...nextIds(last.id, 5), ...nextIds(probe, 5)]) {
      await t.app.inject({ method: 'POST', url: '/items', payload: { id, name: 'planted' } })
    }
    const res = await t.app.inject({ method: 'POST', url: '/items', payload: { name: 'victim' } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await getJson(t.app, `/items/${res.json().id}`)).name, 'victim')
  })

  it('creates an embedded item although the ids after the last one are taken', async () => {
    const item = await createDoc(t.app, '/items', { name: 'parent' })
    const tag = await createDoc(t.app, `/items/${item.id}/tags`, { label: 'a' })
    const probe = new ObjectId().toHexString()
    for (const id of [...nextIds(tag.id, 5), ...nextIds(probe, 5)]) {
      await t.app.inject({ method: 'POST', url: `/items/${item.id}/tags`, payload: { id, label: 'planted' } })
    }
    const res = await t.app.inject({ method: 'POST', url: `/items/${item.id}/tags`, payload: { label: 'victim' } })
    assert.equal(res.statusCode, 201, res.body)
  })

  it('keeps a client-chosen id that is taken a duplicate (422)', async () => {
    const doc = await createDoc(t.app, '/items', { name: 'taken' })
    const res = await t.app.inject({ method: 'POST', url: '/items', payload: { id: doc.id, name: 'again' } })
    assert.equal(res.statusCode, 422, res.body)
  })
})

/** A db whose first insert fails as if the chosen `_id` were taken: the create retries with a fresh id. */
function collideOnce(db: DriverDb): DriverDb {
  let collided = false
  return {
    collection(name: string) {
      const collection = db.collection(name)
      return new Proxy(collection, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver)
          if (property !== 'insertOne' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
          return async (doc: Record<string, unknown>, ...rest: unknown[]) => {
            if (!collided) {
              collided = true
              throw Object.assign(new Error('E11000 duplicate key error index: _id_ dup key'), { code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: doc['_id'] } })
            }
            return value.call(target, doc, ...rest)
          }
        },
      })
    },
  }
}

describeEachStore('a create whose server-chosen id collides', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildAppWith(mode, { wrapDb: collideOnce }, { model: Item, collectionName: 'items', prefix: '/items' })
  })
  after(() => t.close())

  it('retries with a fresh id and answers 201', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/items', payload: { name: 'retried' } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await getJson(t.app, `/items/${res.json().id}`)).name, 'retried')
  })
})
