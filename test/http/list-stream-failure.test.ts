import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, it } from 'node:test'
import type { DriverCollection, DriverCursor } from 'fastify-mongo-crud'
import { type DriverDb, MongoModel, Type } from 'fastify-mongo-crud'
import type { Document } from 'mongodb'
import { ObjectId } from 'mongodb'
import { buildAppWith, type TestApp } from '../harness/app.ts'
import { rawGet } from '../harness/raw-get.ts'
import { describeEachStore } from '../harness/stores.ts'

const Item = MongoModel('Item', { n: Type.Integer() })
/** Documents the broken cursor yields before it throws: more than one streamed batch. */
const BEFORE_FAILURE = 2500

/** A cursor that yields `count` documents, then fails like a storage error half-way through. */
function failingCursor(count: number): DriverCursor {
  async function* docs(): AsyncGenerator<Document> {
    for (let n = 0; n < count; n++) yield { _id: new ObjectId(), n }
    throw new Error('disk read failed half-way')
  }
  return {
    [Symbol.asyncIterator]: docs,
    toArray: async () => {
      throw new Error('disk read failed half-way')
    },
    close: async () => undefined,
  }
}

/** `db` whose `items` collection's find() breaks after BEFORE_FAILURE documents. */
function breakItems(db: DriverDb): DriverDb {
  return {
    collection(name: string): DriverCollection {
      const real = db.collection(name)
      if (name !== 'items') return real
      return new Proxy(real, {
        get: (target, key, receiver) => (key === 'find' ? () => failingCursor(BEFORE_FAILURE) : Reflect.get(target, key, receiver)),
      })
    },
  }
}

describeEachStore('a streamed list that fails half-way', (mode) => {
  let t: TestApp
  let port: number
  const logged: Record<string, unknown>[] = []
  before(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logged.push(JSON.parse(line))
        done()
      },
    })
    t = await buildAppWith(mode, { wrapDb: breakItems, fastify: { logger: { level: 'error', stream } } }, {
      model: Item,
      collectionName: 'items',
      prefix: '/items',
    })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = t.app.server.address()
    assert.ok(address !== null && typeof address === 'object')
    port = address.port
  })
  after(() => t.close())

  it('ends the response so the client sees an error, never a complete-looking array, and logs the failure', async () => {
    const answer = await rawGet(port, '/items')
    assert.equal(answer.status, 200)
    assert.ok(answer.body.startsWith('[{'), answer.body.slice(0, 20))
    assert.ok(answer.body.length > 1000)
    assert.equal(answer.ended, 'with an error')
    assert.ok(!answer.body.endsWith(']'), 'the body must not end like a complete array')
    assert.throws(() => JSON.parse(answer.body))
    const failure = logged.find((line) => line['level'] === 50 && line['collection'] === 'items')
    assert.ok(failure, `no error logged with the collection: ${JSON.stringify(logged)}`)
    assert.match(JSON.stringify(failure), /disk read failed half-way/)
  })
})
