import assert from 'node:assert/strict'
import { afterEach, before, describe, it } from 'node:test'
import { useWireServer } from './wire-harness.ts'

/**
 * `configureFailPoint` as mongod answers it, for the one fail point the engine implements:
 * `maxTimeAlwaysTimeOut` fails every operation that carries a `maxTimeMS` with MaxTimeMSExpired (50),
 * reads and writes alike, and leaves operations without a time limit alone.
 */
describe('configureFailPoint maxTimeAlwaysTimeOut', () => {
  const wire = useWireServer()
  const admin = () => wire().client.db('admin')
  const users = () => wire().client.db('test').collection('users')
  const setMode = (mode: string) => admin().command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode })

  before(async () => {
    await users().insertMany([{ name: 'ann' }, { name: 'bob' }])
  })
  afterEach(() => setMode('off'))

  it('fails reads and writes that carry maxTimeMS with code 50, whole commands, not write errors', async () => {
    await setMode('alwaysOn')
    await assert.rejects(users().find({}, { maxTimeMS: 60_000 }).toArray(), { code: 50 })
    await assert.rejects(users().countDocuments({}, { maxTimeMS: 60_000 }), { code: 50 })
    await assert.rejects(users().distinct('name', {}, { maxTimeMS: 60_000 }), { code: 50 })
    await assert.rejects(users().aggregate([{ $match: {} }], { maxTimeMS: 60_000 }).toArray(), { code: 50 })
    await assert.rejects(users().findOneAndUpdate({ name: 'ann' }, { $set: { x: 1 } }, { maxTimeMS: 60_000 }), { code: 50 })
    await assert.rejects(users().updateOne({ name: 'ann' }, { $set: { x: 1 } }, { maxTimeMS: 60_000 }), { code: 50, codeName: 'MaxTimeMSExpired' })
    await assert.rejects(users().deleteOne({ name: 'ann' }, { maxTimeMS: 60_000 }), { code: 50, codeName: 'MaxTimeMSExpired' })
  })

  it('leaves operations without maxTimeMS alone, and "off" lifts it', async () => {
    await setMode('alwaysOn')
    assert.equal((await users().find({}).toArray()).length, 2)
    await setMode('off')
    assert.equal((await users().find({}, { maxTimeMS: 60_000 }).toArray()).length, 2)
    assert.equal(await users().countDocuments({ x: 1 }), 0)
  })

  it('is refused outside the admin database, for unknown names and for unknown modes', async () => {
    await assert.rejects(wire().client.db('test').command({ configureFailPoint: 'maxTimeAlwaysTimeOut', mode: 'alwaysOn' }), { code: 13 })
    await assert.rejects(admin().command({ configureFailPoint: 'noSuchFailPoint', mode: 'alwaysOn' }), { code: 2 })
    await assert.rejects(setMode('sometimes'), { code: 2 })
  })
})
