import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MongoServerError } from 'mongodb'
import { useWireServer } from './wire-harness.ts'

/** Document validation is not implemented: the README's refusal list promises these answers, not a silent accept. */
describe('document validation over the wire', () => {
  const wire = useWireServer()
  const db = () => wire().client.db('validation')

  it("refuses collMod's validator with 2 BadValue naming the option", async () => {
    await db().collection('c').insertOne({ a: 1 })
    const error = await db().command({ collMod: 'c', validator: { a: { $type: 'int' } } }).catch((e: unknown) => e)
    assert.ok(error instanceof MongoServerError)
    assert.equal(error.code, 2)
    assert.match(error.message, /collMod option\(s\) validator not supported/)
  })

  it('refuses create with a validator or validationLevel with 2 BadValue naming the option', async () => {
    for (const option of [{ validator: { a: { $type: 'int' } } }, { validationLevel: 'strict' }]) {
      const error = await db().createCollection('v', option).catch((e: unknown) => e)
      assert.ok(error instanceof MongoServerError, String(error))
      assert.equal(error.code, 2)
      assert.match(error.message, new RegExp(Object.keys(option)[0]!))
    }
  })
})
