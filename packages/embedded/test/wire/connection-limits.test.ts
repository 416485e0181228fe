import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { MongoClient, MongoServerSelectionError } from 'mongodb'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireLimitEvent, type WireServer, type WireServerOptions } from '../../src/index.ts'
import { frame, opMsg, RawClient } from './wire-harness.ts'

/** Every raw socket the tests open, closed before their server (so a failed assertion cannot hang `close()`). */
const opened: RawClient[] = []

async function openRaw(server: WireServer): Promise<RawClient> {
  const raw = await RawClient.open(server)
  opened.push(raw)
  return raw
}

/** A server of its own per describe, with the limit events it reported. */
function useLimitedServer(options: WireServerOptions): () => { server: WireServer, events: WireLimitEvent[], client: MongoClient } {
  let engine: EmbeddedDb | undefined
  let server: WireServer | undefined
  let client: MongoClient | undefined
  const events: WireLimitEvent[] = []
  before(async () => {
    engine = await openEmbedded()
    server = await startWireServer(engine, { ...options, onLimit: (event) => events.push(event) })
    client = new MongoClient(server.uri, { maxPoolSize: 1, serverSelectionTimeoutMS: 60_000 })
    await client.connect()
  })
  after(async () => {
    for (const raw of opened.splice(0)) raw.close()
    await client?.close()
    await server?.close()
    await engine?.close()
  })
  return () => {
    if (!server || !client) throw new Error('server not started yet')
    return { server, events, client }
  }
}

/** Waits (no fixed delay) until the server's own state satisfies `ready`; the test's timeout guards a hang. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** A raw socket that sends the first `sent` bytes of a message announcing `length` bytes, and never the rest. */
async function hostile(server: WireServer, length: number, sent: number): Promise<RawClient> {
  const raw = await openRaw(server)
  const bytes = Buffer.alloc(sent)
  bytes.writeInt32LE(length, 0)
  bytes.writeInt32LE(2013, 12)
  raw.send(bytes)
  return raw
}

const isOpen = (raw: RawClient) => !raw.socket.destroyed && !raw.socket.readableEnded

describe('maxConnections', { timeout: 60_000 }, () => {
  // The driver's client holds a monitor and a pool of one; raw clients fill the rest.
  const limited = useLimitedServer({ maxConnections: 5 })

  it('closes a connection past the cap at once, counts and reports it, and leaves the open ones working', async () => {
    const { server, events, client } = limited()
    assert.equal((await client.db('test').command({ ping: 1 }))['ok'], 1)
    const driverConnections = server.stats().connections
    const raws = await Promise.all(Array.from({ length: 5 - driverConnections }, () => openRaw(server)))
    for (const raw of raws) assert.equal((await raw.command({ ping: 1 }))['ok'], 1)
    assert.equal(server.stats().connections, 5)

    const extra = await openRaw(server)
    extra.send(opMsg({ ping: 1, $db: 'test' }))
    assert.equal(await extra.reply(), undefined, 'the connection past the cap got a reply')
    await extra.closed
    assert.equal(server.stats().refusedConnections, 1)
    assert.equal(events.length, 1)
    assert.equal(events[0]!.kind, 'connection-refused')
    assert.match(events[0]!.message, /refused a connection from 127\.0\.0\.1:\d+: 5 open, maxConnections is 5/)

    for (const raw of raws) assert.equal((await raw.command({ ping: 1 }))['ok'], 1)
    assert.equal((await client.db('test').command({ ping: 1 }))['ok'], 1)

    // A second driver finds the server full: a connection error, not a hang.
    const late = new MongoClient(server.uri, { serverSelectionTimeoutMS: 1_000 })
    const error = await late.connect().then(() => undefined, (e: unknown) => e)
    await late.close()
    assert.ok(error instanceof MongoServerSelectionError, `expected a server selection error, got ${String(error)}`)
    assert.match(error.message, /closed/)

    // A slot freed is a slot taken again.
    raws[0]!.close()
    await until(() => server.stats().connections === 4)
    const again = await openRaw(server)
    assert.equal((await again.command({ ping: 1 }))['ok'], 1)
    for (const raw of [...raws, again]) raw.close()
  })
})

describe('maxBufferedBytes', { timeout: 60_000 }, () => {
  const maxBufferedBytes = 4_500_000
  const limited = useLimitedServer({ maxMessageBytes: 2_000_000, maxBufferedBytes })
  const partial = 1_000_000

  it('keeps the bytes of unfinished messages under the cap by closing the largest holders, and the driver keeps working', async () => {
    const { server, events, client } = limited()
    const coll = client.db('test').collection<{ _id: number, blob?: string }>('buffered')
    // Ten sockets each announce a 1.9 MB message and send 1 MB of it: 10 MB unless the cap holds.
    const sockets = await Promise.all(Array.from({ length: 10 }, () => hostile(server, 1_900_000, partial)))
    // Settled: every socket still open has all its bytes held by the server (a closed one holds none).
    await until(() => server.stats().bufferedBytes === sockets.filter(isOpen).length * partial)
    const stats = server.stats()
    const open = sockets.filter(isOpen).length
    assert.ok(stats.peakBufferedBytes <= maxBufferedBytes, `peak ${stats.peakBufferedBytes} over the cap`)
    assert.ok(open >= 1 && open <= 4, `${open} hostile sockets hold 1 MB each under a 4.5 MB cap`)
    assert.equal(stats.droppedForBufferedBytes, 10 - open)
    assert.ok(events.every((event) => event.kind === 'connection-dropped' && event.reason === 'max-buffered-bytes'))
    assert.match(events[0]!.message, /held the most bytes \(\d+\) when the server's buffered messages reached maxBufferedBytes \(4500000\)/)

    // The driver's requests are small next to 1 MB: it is never the one closed, even when the total is full.
    await coll.insertOne({ _id: 1 })
    assert.deepEqual(await coll.findOne({ _id: 1 }), { _id: 1 })
    const before = server.stats().droppedForBufferedBytes
    const filler = await Promise.all(Array.from({ length: 4 - open }, () => hostile(server, 1_900_000, partial)))
    await until(() => server.stats().bufferedBytes === [...sockets, ...filler].filter(isOpen).length * partial)
    assert.equal(server.stats().bufferedBytes, 4 * partial, 'the hostile sockets hold 4 MB of the 4.5 MB')
    await coll.insertOne({ _id: 2, blob: 'x'.repeat(600_000) })
    assert.equal((await coll.findOne({ _id: 2 }))?.blob?.length, 600_000)
    assert.equal(server.stats().droppedForBufferedBytes, before + 1, 'one hostile socket made room for the 600 kB insert')
    assert.ok(server.stats().peakBufferedBytes <= maxBufferedBytes)
    for (const raw of [...sockets, ...filler]) raw.close()
    await until(() => server.stats().bufferedBytes === 0)
  })

  it('gives the bytes of a closed connection back', async () => {
    const { server } = limited()
    const raw = await hostile(server, 1_900_000, partial)
    await until(() => server.stats().bufferedBytes === partial)
    raw.close()
    await until(() => server.stats().bufferedBytes === 0)
  })

  it('stops reading a message announced too large: its bytes never count', async () => {
    const { server } = limited()
    const raw = await openRaw(server)
    const body = Buffer.alloc(1_500_000)
    const big = frame(2013, Buffer.alloc(2_100_000))
    raw.send(big.subarray(0, 16))
    const reply = await raw.reply()
    assert.equal(reply?.doc['code'], 10334)
    raw.send(body)
    await raw.closed
    assert.equal(server.stats().bufferedBytes, 0)
  })
})

describe('partialMessageTimeoutMS', { timeout: 60_000 }, () => {
  const limited = useLimitedServer({ partialMessageTimeoutMS: 50 })

  it('closes a socket that leaves a message unfinished, and not an idle driver connection', async () => {
    const { server, events, client } = limited()
    assert.equal((await client.db('test').command({ ping: 1 }))['ok'], 1)
    const slow = await hostile(server, 1_000, 100)
    await slow.closed
    assert.equal(server.stats().droppedForPartialMessageTimeout, 1)
    assert.equal(events.length, 1)
    assert.match(events[0]!.message, /closed connection \d+: a message took longer than partialMessageTimeoutMS \(50 ms\) to arrive, 100 bytes of it received/)
    await until(() => server.stats().bufferedBytes === 0)
    // The driver's pooled connection sat idle meanwhile (no unfinished message): still open.
    assert.equal((await client.db('test').command({ ping: 1 }))['ok'], 1)
    assert.equal(server.stats().droppedForPartialMessageTimeout, 1)
  })

  it('answers a message that arrives in pieces', async () => {
    const { server } = limited()
    const socket = connect(server.port, server.host)
    await once(socket, 'connect')
    try {
      const message = opMsg({ ping: 1, $db: 'test' })
      socket.write(message.subarray(0, 10))
      socket.write(message.subarray(10))
      const [reply] = (await once(socket, 'data')) as [Buffer]
      assert.equal(reply.readInt32LE(0), reply.length)
    } finally {
      socket.destroy()
    }
  })
})

describe('limit options', () => {
  it('are validated when the server starts', async () => {
    const engine = await openEmbedded()
    try {
      for (const [options, message] of [
        [{ maxConnections: 0 }, /maxConnections must be a positive integer, got 0/],
        [{ maxBufferedBytes: 1_000_000 }, /maxBufferedBytes must be an integer of at least maxMessageBytes \(48000000\), got 1000000/],
        [{ partialMessageTimeoutMS: -1 }, /partialMessageTimeoutMS must be an integer from 0/],
      ] as const) {
        await assert.rejects(startWireServer(engine, options), message)
      }
    } finally {
      await engine.close()
    }
  })
})
