import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { MongoClient } from 'mongodb'
import type { Document } from '../../src/document.ts'
import { opMsg, RawClient, useWireServer } from './wire-harness.ts'

/** A digest of a collection's documents in _id order: equal digests, equal data. */
async function digest(docs: Document[]): Promise<string> {
  const hash = createHash('sha256')
  for (const doc of docs) hash.update(JSON.stringify(doc))
  return hash.digest('hex')
}

describe('robustness against bad clients', () => {
  const wire = useWireServer()

  async function snapshot(): Promise<string> {
    return digest(await wire().client.db('test').collection('safe').find({}).sort({ _id: 1 }).toArray())
  }

  it('survives garbage, truncated frames and mid-message closes, with the data intact', async () => {
    await wire().client.db('test').collection<{ _id: number, v: string }>('safe').insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, v: `value ${i}` })))
    const before = await snapshot()
    const insert = opMsg({ insert: 'safe', documents: [{ _id: 'half' }], $db: 'test' })
    const attacks: Buffer[] = [
      randomBytes(4096),
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      Buffer.from([0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      Buffer.from([0xff, 0xff, 0xff, 0x7f]),
      insert.subarray(0, insert.length - 5),
      insert.subarray(0, 10),
    ]
    for (const attack of attacks) {
      const raw = await RawClient.open(wire().server)
      raw.send(attack)
      // Either the server closes on its own, or we close mid-message: both must be harmless.
      raw.socket.end()
      await raw.closed
    }
    assert.equal(await snapshot(), before)
    assert.equal(await wire().client.db('test').collection('safe').countDocuments({ _id: 'half' } as Document), 0)
    const raw = await RawClient.open(wire().server)
    try {
      assert.equal((await raw.command({ ping: 1 }))['ok'], 1)
    } finally {
      raw.close()
    }
  })

  it('keeps serving a healthy client while another one sends garbage', async () => {
    const bad = await RawClient.open(wire().server)
    bad.send(Buffer.from([40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 0x07, 0, 0, 9, 9, 9]))
    const healthy = await wire().client.db('test').collection('safe').countDocuments()
    assert.equal(healthy, 50)
    bad.close()
    await bad.closed
  })
})

describe('100 concurrent driver connections', () => {
  const wire = useWireServer()

  it('lose no write: count and checksum match what was acknowledged', async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, async () => {
      // A guard against a hang, not a limit under test: on a loaded machine 100 handshakes took over 5 s.
      const client = new MongoClient(wire().server.uri, { maxPoolSize: 1, serverSelectionTimeoutMS: 60_000 })
      await client.connect()
      return client
    }))
    try {
      const expected = new Map<string, number>()
      await Promise.all(clients.map(async (client, c) => {
        const coll = client.db('test').collection('load')
        for (let i = 0; i < 20; i++) {
          const id = `${c}-${i}`
          await coll.insertOne({ _id: id, v: 0 } as Document)
          expected.set(id, 0)
          if (i % 3 === 0) {
            await coll.updateOne({ _id: id } as Document, { $inc: { v: i } })
            expected.set(id, i)
          }
          if (i % 5 === 4) {
            await coll.deleteOne({ _id: `${c}-${i - 1}` } as Document)
            expected.delete(`${c}-${i - 1}`)
          }
          await coll.updateOne({ _id: 'counter' } as Document, { $inc: { n: 1 } }, { upsert: true })
        }
      }))
      const coll = wire().client.db('test').collection('load')
      assert.equal(await coll.countDocuments({ _id: { $ne: 'counter' } } as Document), expected.size)
      assert.equal((await coll.findOne({ _id: 'counter' } as Document))?.['n'], 2000)
      const stored = await coll.find({ _id: { $ne: 'counter' } } as Document).sort({ _id: 1 }).toArray()
      const wanted = [...expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([_id, v]) => ({ _id, v }))
      assert.equal(await digest(stored), await digest(wanted))
    } finally {
      await Promise.all(clients.map((client) => client.close()))
    }
  })
})
