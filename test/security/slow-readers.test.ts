import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openEmbedded, startWireServer, type WireServer } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'
import { type FindCursor, MongoClient } from 'mongodb'
import { buildApp, type TestApp } from '../harness/app.ts'
import { storeModes } from '../harness/stores.ts'

const Item = MongoModel('Item', { n: Type.Integer(), pad: Type.String() })
/** Enough bytes per list that a client which never reads stalls the stream (socket buffers fill). */
const COUNT = 200
const PAD = 'x'.repeat(30_000)
const STALLED = 300
const IDLE_CURSORS = 300

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`

async function seed(db: { collection(name: string): { insertOne(doc: object): Promise<unknown> } }): Promise<void> {
  const items = db.collection('items')
  for (let start = 0; start < COUNT; start += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, i) => items.insertOne({ n: start + i, pad: PAD })))
  }
}

/**
 * Sends a GET of the unbounded list and stops reading as soon as the first bytes arrive:
 * resolves with the status line once the server has started answering.
 */
async function stalledList(port: number): Promise<{ socket: Socket, status: number, head: string }> {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => undefined)
  await once(socket, 'connect')
  socket.write('GET /items HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  const [chunk] = (await once(socket, 'data')) as [Buffer]
  socket.pause()
  const head = chunk.toString('latin1')
  return { socket, status: Number(head.slice(9, 12)), head }
}

/** The normal traffic that must keep working: read one, create one, a page, over real HTTP. */
async function normalRequests(base: string): Promise<void> {
  const created = await fetch(`${base}/items`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ n: -1, pad: 'new' }),
  })
  assert.equal(created.status, 201, await created.clone().text())
  const { id } = (await created.json()) as { id: string }
  const one = await fetch(`${base}/items/${id}`)
  assert.equal(one.status, 200, await one.clone().text())
  assert.equal(((await one.json()) as { n: number }).n, -1)
  const page = await fetch(`${base}/items?limit=10&sort_by=n`)
  assert.equal(page.status, 200, await page.clone().text())
  assert.equal(((await page.json()) as unknown[]).length, 10)
  const removed = await fetch(`${base}/items/${id}`, { method: 'DELETE' })
  assert.equal(removed.status, 204, await removed.clone().text())
}

// The in-process engine modes: over driver-wire each stalled stream also holds a driver batch (up to
// 16 MiB) and the wire server's socket buffers, which makes the run minutes long, not seconds.
for (const mode of storeModes.filter((m) => m.name.startsWith('embedded'))) describe(`stalled list streams [${mode.name}]`, () => {
  let t: TestApp
  let base: string
  before(async () => {
    t = await buildApp(mode, { model: Item, collectionName: 'items', prefix: '/items' })
    await seed(t.store.db)
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = t.app.server.address()
    assert.ok(address !== null && typeof address === 'object')
    base = `http://127.0.0.1:${address.port}`
  })
  after(() => t.close())

  it(`${STALLED} clients that never read leave normal requests working`, { timeout: 60_000 }, async (c) => {
    const rssBefore = process.memoryUsage().rss
    const port = Number(new URL(base).port)
    const serverSockets: Socket[] = []
    const track = (socket: Socket) => serverSockets.push(socket)
    t.app.server.on('connection', track)
    const stalled = []
    for (let i = 0; i < STALLED; i += 2) {
      stalled.push(...(await Promise.all([stalledList(port), stalledList(port)])))
      // Writes keep coming meanwhile, as on a live server, so the streams read different states.
      await t.store.db.collection('log').insertOne({ i })
    }
    t.app.server.off('connection', track)
    try {
      const streaming = stalled.filter((s) => s.status === 200)
      const refused = stalled.filter((s) => s.status === 503)
      assert.equal(streaming.length + refused.length, STALLED, `unexpected statuses: ${[...new Set(stalled.map((s) => s.status))]}`)
      assert.ok(streaming.length > 0)
      for (const { head } of refused) assert.match(head, /\r\nretry-after: \d+\r\n/i)
      await normalRequests(base)
      c.diagnostic(`${streaming.length} streams served, ${refused.length} refused with 503; RSS ${mib(rssBefore)} before, ${mib(process.memoryUsage().rss)} with every client stalled`)
    } finally {
      for (const { socket } of stalled) socket.destroy()
    }
    await Promise.all(serverSockets.map((socket) => (socket.destroyed ? undefined : new Promise((closed) => socket.once('close', closed)))))
    // Once the stalled clients are gone, the streams they held are released: a full list works again.
    const all = await fetch(`${base}/items`)
    assert.equal(all.status, 200)
    assert.equal(((await all.json()) as unknown[]).length, COUNT)
  })
})

describe('idle wire cursors on the durable engine', () => {
  let dir: string
  let engine: Awaited<ReturnType<typeof openEmbedded>>
  let server: WireServer
  let client: MongoClient
  let app: Awaited<ReturnType<typeof createApp>>
  let base: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-slow-'))
    engine = await openEmbedded({ path: dir })
    await seed(engine)
    server = await startWireServer(engine)
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 60_000 })
    await client.connect()
    app = await createApp()
    await app.register(CRUDRouter, { model: Item, collectionName: 'items', prefix: '/items', db: engine })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    assert.ok(address !== null && typeof address === 'object')
    base = `http://127.0.0.1:${address.port}`
  })
  after(async () => {
    await app?.close()
    await client?.close()
    await server?.close()
    await engine?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it(`${IDLE_CURSORS} open cursors leave driver and HTTP reads and writes working`, { timeout: 60_000 }, async (c) => {
    const rssBefore = process.memoryUsage().rss
    const items = client.db('embedded').collection<{ n: number, pad: string }>('items')
    const cursors: FindCursor[] = []
    try {
      for (let i = 0; i < IDLE_CURSORS; i++) {
        const cursor = items.find({}, { batchSize: 2 })
        cursors.push(cursor)
        assert.ok(await cursor.next())
        // Writes keep coming meanwhile, as on a live server, so each cursor reads a newer state.
        if (i % 2 === 0) await client.db('embedded').collection('log').insertOne({ i })
      }
      const { insertedId } = await items.insertOne({ n: -2, pad: 'wire' })
      assert.equal((await items.findOne({ _id: insertedId }))?.n, -2)
      assert.equal((await items.find({}).limit(5).toArray()).length, 5)
      assert.equal((await items.deleteOne({ _id: insertedId })).deletedCount, 1)
      await normalRequests(base)
      // A cursor left idle still continues where it stopped.
      assert.ok(await cursors[0]?.next())
      c.diagnostic(`RSS ${mib(rssBefore)} before, ${mib(process.memoryUsage().rss)} with ${IDLE_CURSORS} idle cursors`)
    } finally {
      await Promise.all(cursors.map((cursor) => cursor.close()))
    }
  })
})
