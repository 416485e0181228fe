import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { MongoClient, MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/**
 * The `failCommand` fail point, as MongoDB's spec tests use it: it fails the named commands at the
 * wire server's dispatch (an error reply, a closed connection, or a write concern error on a
 * command that ran), counted by the mode, and never `configureFailPoint` or the handshake.
 */
describe('configureFailPoint failCommand', () => {
  const wire = useWireServer({}, { retryReads: false, retryWrites: false })
  const admin = () => wire().client.db('admin')
  const items = () => wire().client.db('test').collection<{ _id: number }>('items')
  const failCommand = (mode: unknown, data: Record<string, unknown>) => admin().command({ configureFailPoint: 'failCommand', mode, data })

  afterEach(() => admin().command({ configureFailPoint: 'failCommand', mode: 'off' }))

  it('{ times: 1 } fails the next named command only, with the code, its name and errmsg', async () => {
    await failCommand({ times: 1 }, { failCommands: ['insert', 'count'], errorCode: 8, errorLabels: ['Custom'] })
    const error = await items().insertOne({ _id: 1 }).catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 8)
    assert.equal(error.codeName, 'UnknownError')
    assert.equal(error.errmsg, "Failing command via 'failCommand' failpoint")
    assert.ok(error.hasErrorLabel('Custom'))
    assert.equal(await items().countDocuments({}), 0)
    await items().insertOne({ _id: 1 })
    assert.equal(await items().estimatedDocumentCount(), 1)
  })

  it('{ skip: 1 } lets the first named command through and fails the later ones; off lifts it', async () => {
    await failCommand({ skip: 1 }, { failCommands: ['find'], errorCode: 2, errmsg: 'boom' })
    assert.equal((await items().find({}).toArray()).length, 1)
    await assert.rejects(items().find({}).toArray(), { code: 2, message: 'boom' })
    await assert.rejects(items().find({}).toArray(), { code: 2 })
    await admin().command({ configureFailPoint: 'failCommand', mode: 'off' })
    assert.equal((await items().find({}).toArray()).length, 1)
  })

  it('closeConnection closes the connection without a reply; the client then reconnects', async () => {
    await failCommand({ times: 1 }, { failCommands: ['find'], closeConnection: true })
    await assert.rejects(items().find({}).toArray(), MongoNetworkError)
    assert.equal((await items().find({}).toArray()).length, 1)
  })

  it('writeConcernError runs the command and adds the error to its reply', async () => {
    await failCommand({ times: 1 }, { failCommands: ['insert'], writeConcernError: { code: 100, errmsg: 'not enough' } })
    await assert.rejects(items().insertOne({ _id: 2 }), MongoWriteConcernError)
    assert.equal(await items().countDocuments({ _id: 2 }), 1)
  })

  it('appName fails only the commands of connections that gave that application name', async () => {
    await failCommand('alwaysOn', { failCommands: ['find'], errorCode: 8, appName: 'victim' })
    const victim = new MongoClient(wire().server.uri, { appName: 'victim', retryReads: false })
    try {
      await assert.rejects(victim.db('test').collection('items').find({}).toArray(), { code: 8 })
      assert.equal((await items().find({}).toArray()).length, 2)
    } finally {
      await victim.close()
    }
  })

  it('never fails configureFailPoint or the handshake', async () => {
    await failCommand('alwaysOn', { failCommands: ['configureFailPoint', 'hello', 'isMaster', 'ping'], errorCode: 8 })
    const other = new MongoClient(wire().server.uri)
    try {
      await other.connect()
      await assert.rejects(other.db('admin').command({ ping: 1 }), { code: 8 })
    } finally {
      await other.close()
    }
  })

  it('blockConnection holds the command blockTimeMS before running it (currentOp lists it meanwhile; killOp ends the wait)', async () => {
    const stored = await items().countDocuments({})
    await failCommand({ times: 1 }, { failCommands: ['find'], blockConnection: true, blockTimeMS: 600_000 })
    const held = items().find({}).toArray().catch((error: unknown) => error)
    let op: { opid: number } | undefined
    while (op === undefined) {
      const { inprog } = await admin().command({ currentOp: 1 })
      op = (inprog as { opid: number, command: { find?: unknown } }[]).find((running) => running.command.find === 'items')
    }
    await admin().command({ killOp: 1, op: op.opid })
    assert.equal(((await held) as MongoServerError).code, 11601)
    assert.equal((await items().find({}).toArray()).length, stored)
  })

  it('refuses what it does not implement, and bad modes or data, with BadValue or TypeMismatch', async () => {
    await assert.rejects(failCommand('alwaysOn', { failCommands: ['find'], blockConnection: true }), { code: 2, message: /blockTimeMS/ })
    await assert.rejects(failCommand('alwaysOn', { failCommands: ['find'], failInternalCommands: true }), { code: 2, message: /failInternalCommands/ })
    await assert.rejects(failCommand({ times: -1 }, { failCommands: ['find'] }), { code: 2 })
    await assert.rejects(failCommand({ activationProbability: 0.5 }, { failCommands: ['find'] }), { code: 2 })
    await assert.rejects(failCommand('alwaysOn', { errorCode: 8 }), { code: 2, message: /failCommands/ })
    await assert.rejects(admin().command({ configureFailPoint: 'failCommand', mode: 'alwaysOn' }), { code: 14 })
  })

  it('leaves in-process calls alone, and is not an in-process fail point', async () => {
    await failCommand('alwaysOn', { failCommands: ['find'], errorCode: 8 })
    assert.equal((await wire().engine.db('test').collection('items').find({}).toArray()).length, 2)
    await assert.rejects(items().find({}).toArray(), { code: 8 })
    assert.throws(() => wire().engine.configureFailPoint('failCommand' as 'maxTimeAlwaysTimeOut', 'alwaysOn'), { code: 2 })
  })
})
