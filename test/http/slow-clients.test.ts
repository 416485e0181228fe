import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createApp, MongoModel, Type } from 'fastify-mongo-crud'
import { buildApp, type TestApp } from '../harness/app.ts'
import { storeModes } from '../harness/stores.ts'

const Item = MongoModel('Item', { n: Type.Integer(), pad: Type.String() })
const COUNT = 200
const PAD = 'x'.repeat(30_000)

describe('createApp timeouts for slow clients', () => {
  it('closes silent connections after a minute and waits 30 seconds for a request, unless told otherwise', async () => {
    const app = await createApp()
    const tuned = await createApp({ fastify: { connectionTimeout: 5000, requestTimeout: 1000 } })
    try {
      assert.equal(app.server.timeout, 60_000)
      assert.equal(app.server.requestTimeout, 30_000)
      assert.equal(tuned.server.timeout, 5000)
      assert.equal(tuned.server.requestTimeout, 1000)
    } finally {
      await app.close()
      await tuned.close()
    }
  })
})

// The stream's own limits do not depend on the store: one in-process mode shows them.
const mode = storeModes[0]
assert.ok(mode)

describe(`a streamed list whose client stops reading [${mode.name}]`, () => {
  let t: TestApp
  let base: string
  before(async () => {
    t = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items', maxStreams: 1, streamIdleTimeout: 3000 })
    const items = t.store.db.collection('items')
    await Promise.all(Array.from({ length: COUNT }, (_, n) => items.insertOne({ n, pad: PAD })))
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = t.app.server.address()
    assert.ok(address !== null && typeof address === 'object')
    base = `http://127.0.0.1:${address.port}`
  })
  after(() => t.close())

  it('holds a place until the idle timeout disconnects it; meanwhile others get 503 with Retry-After', { timeout: 30_000 }, async () => {
    const serverSide = once(t.app.server, 'connection') as Promise<[Socket]>
    const stalled = connect(Number(new URL(base).port), '127.0.0.1')
    stalled.on('error', () => undefined)
    await once(stalled, 'connect')
    stalled.write('GET /items HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    const [head] = (await once(stalled, 'data')) as [Buffer]
    stalled.pause()
    assert.match(head.toString('latin1'), /^HTTP\/1\.1 200 /)
    const [socket] = await serverSide
    const closed = new Promise((resolve) => socket.once('close', resolve))

    const refused = await fetch(`${base}/items`)
    assert.equal(refused.status, 503)
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/)
    assert.match(((await refused.json()) as { detail: string }).detail, /Too many lists are being streamed \(at most 1 at once\)/)
    // Pages up to 1000 are not streamed: never refused.
    assert.equal((await fetch(`${base}/items?limit=5`)).status, 200)

    // Nothing read for 3 seconds: the server cuts the stalled client off and frees its place.
    await closed
    stalled.destroy()
    const all = await fetch(`${base}/items`)
    assert.equal(all.status, 200)
    assert.equal(((await all.json()) as unknown[]).length, COUNT)
  })
})
