import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type CommandFailedEvent, type CommandSucceededEvent, MongoBulkWriteError, MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/**
 * `sort` in an update statement is a MongoDB 8.0 field; the engine reports 7.0, which fails the
 * whole command on it (an unknown field of the statement), not one statement with a write error.
 */
describe('update statements with sort, as MongoDB 7.0', () => {
  const wire = useWireServer({}, { monitorCommands: true })
  const coll = () => wire().client.db('test').collection<{ _id: number, x: number }>('update-sort')

  async function failedUpdate(run: () => Promise<unknown>): Promise<{ error: unknown, events: string[] }> {
    const events: string[] = []
    const succeeded = (event: CommandSucceededEvent) => event.commandName === 'update' && events.push('succeeded')
    const failed = (event: CommandFailedEvent) => event.commandName === 'update' && events.push('failed')
    wire().client.on('commandSucceeded', succeeded)
    wire().client.on('commandFailed', failed)
    try {
      return { error: await run().then(() => undefined, (error: unknown) => error), events }
    } finally {
      wire().client.off('commandSucceeded', succeeded)
      wire().client.off('commandFailed', failed)
    }
  }

  it('fails the command with 40415 naming update.updates.sort (updateOne, replaceOne), and changes nothing', async () => {
    await coll().insertMany([{ _id: 1, x: 11 }, { _id: 2, x: 22 }, { _id: 3, x: 33 }])
    for (const run of [
      () => coll().updateOne({ _id: { $gt: 1 } }, { $inc: { x: 1 } }, { sort: { _id: -1 } }),
      () => coll().replaceOne({ _id: { $gt: 1 } }, { x: 1 }, { sort: { _id: -1 } }),
    ]) {
      const { error, events } = await failedUpdate(run)
      assert.ok(error instanceof MongoServerError, `expected a server error, got ${String(error)}`)
      assert.ok(!(error instanceof MongoBulkWriteError), 'a command error, not a write error')
      assert.equal(error.code, 40415)
      assert.equal(error.codeName, 'Location40415')
      assert.match(error.message, /BSON field 'update\.updates\.sort' is an unknown field/)
      assert.deepEqual(events, ['failed'])
    }
    assert.deepEqual(await coll().find().sort({ _id: 1 }).toArray(), [{ _id: 1, x: 11 }, { _id: 2, x: 22 }, { _id: 3, x: 33 }])
  })

  it('fails a whole bulkWrite whose later statement carries sort, before running the earlier ones', async () => {
    const { error, events } = await failedUpdate(() => coll().bulkWrite([
      { updateOne: { filter: { _id: 1 }, update: { $set: { x: 0 } } } },
      { updateOne: { filter: { _id: 2 }, update: { $set: { x: 0 } }, sort: { _id: 1 } } },
    ]))
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 40415)
    assert.deepEqual(events, ['failed'])
    assert.deepEqual(await coll().find().sort({ _id: 1 }).toArray(), [{ _id: 1, x: 11 }, { _id: 2, x: 22 }, { _id: 3, x: 33 }])
  })
})
