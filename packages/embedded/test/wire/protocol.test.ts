import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { frame, opMsg, opQuery, RawClient, useWireServer } from './wire-harness.ts'

describe('wire protocol framing', () => {
  const wire = useWireServer({ maxMessageBytes: 64 * 1024 })

  it('answers the legacy OP_QUERY handshake with OP_REPLY, as a writable standalone', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      raw.send(opQuery('admin.$cmd', { isMaster: 1, helloOk: true, client: { driver: { name: 'raw' } }, compression: ['zstd', 'snappy'] }))
      const reply = await raw.reply()
      assert.equal(reply?.opCode, 1)
      const doc = reply!.doc
      assert.equal(doc['ok'], 1)
      assert.equal(doc['ismaster'], true)
      assert.equal(doc['helloOk'], true)
      assert.equal(doc['maxBsonObjectSize'], 16 * 1024 * 1024)
      assert.equal(doc['maxWriteBatchSize'], 100_000)
      assert.equal(doc['minWireVersion'], 0)
      assert.equal(doc['maxWireVersion'], 21)
      assert.equal(doc['setName'], undefined)
      assert.equal(doc['compression'], undefined)
    } finally {
      raw.close()
    }
  })

  it('answers hello over OP_MSG with isWritablePrimary and the configured message limit', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const doc = await raw.command({ hello: 1 })
      assert.equal(doc['isWritablePrimary'], true)
      assert.equal(doc['maxMessageSizeBytes'], 64 * 1024)
    } finally {
      raw.close()
    }
  })

  it('refuses other commands over OP_QUERY with code 352', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      raw.send(opQuery('test.$cmd', { find: 'x' }))
      const reply = await raw.reply()
      assert.equal(reply?.doc['code'], 352)
    } finally {
      raw.close()
    }
  })

  it('merges kind-1 document sequences into the command, with the checksum flag tolerated', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      raw.send(opMsg({ insert: 'seq', $db: 'test' }, { sequences: { documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] }, checksum: true }))
      assert.equal((await raw.reply())?.doc['n'], 3)
      assert.equal(await wire().client.db('test').collection('seq').countDocuments(), 3)
    } finally {
      raw.close()
    }
  })

  it('runs a moreToCome message without replying, then answers the next one', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      raw.send(opMsg({ insert: 'quiet', documents: [{ _id: 'q' }], $db: 'test' }, { flags: 2 }))
      const reply = await raw.command({ count: 'quiet' })
      assert.equal(reply['n'], 1)
    } finally {
      raw.close()
    }
  })

  it('answers CommandNotFound (59) for an unknown command and keeps the connection', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const doc = await raw.command({ frobnicate: 1 })
      assert.deepEqual({ ok: doc['ok'], code: doc['code'], codeName: doc['codeName'] }, { ok: 0, code: 59, codeName: 'CommandNotFound' })
      assert.equal((await raw.command({ ping: 1 }))['ok'], 1)
    } finally {
      raw.close()
    }
  })

  it('answers an invalid BSON body with an error and keeps serving', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const bad = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), Buffer.from([12, 0, 0, 0, 2, 0x61, 0, 5, 0, 0, 0, 0])])
      raw.send(frame(2013, bad))
      const reply = await raw.reply()
      assert.equal(reply?.doc['ok'], 0)
      assert.equal((await raw.command({ ping: 1 }))['ok'], 1)
    } finally {
      raw.close()
    }
  })

  it('refuses OP_COMPRESSED clearly and closes the connection', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      const body = Buffer.alloc(9)
      body.writeInt32LE(2013, 0)
      raw.send(frame(2012, body))
      const reply = await raw.reply()
      assert.match(String(reply?.doc['errmsg']), /OP_COMPRESSED is not supported/)
      await raw.closed
    } finally {
      raw.close()
    }
  })

  it('answers a message above maxMessageBytes with an error, then closes the connection', async () => {
    const raw = await RawClient.open(wire().server)
    try {
      raw.send(opMsg({ insert: 'big', documents: [{ blob: 'x'.repeat(70 * 1024) }], $db: 'test' }))
      const reply = await raw.reply()
      assert.equal(reply?.doc['ok'], 0)
      assert.match(String(reply?.doc['errmsg']), /exceeds the maximum of 65536 bytes/)
      await raw.closed
      assert.equal(await wire().client.db('test').collection('big').countDocuments(), 0)
    } finally {
      raw.close()
    }
  })
})
