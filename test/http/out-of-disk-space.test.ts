// A write the database has no room for (MongoDB's OutOfDiskSpace, 14031, as the embedded engine
// answers a full disk) is 507 with a detail (docs/http-contract.md), on every write route; reads go on.
// How the code is answered does not depend on the store: it runs once, through the official driver and
// the engine's wire server, whose `failCommand` fail point answers a write with the server's error.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Db } from 'mongodb'
import { buildApp, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { aliceInput, User } from '../harness/models.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { driverWire } from '../harness/wire-store-modes.ts'

const NO_ROOM = 'The database has no room to store the write (its disk is full), and did not store it. Reads still work: send it again once space is freed'

describe('a write the database has no room for', () => {
  let t: TestApp
  let alice: Json
  let db: Db
  before(async () => {
    t = await buildApp(driverWire, { model: User, collectionName: 'users', prefix: '/users' })
    alice = await createDoc(t.app, '/users', aliceInput)
    db = t.store.db as unknown as Db
    await db.admin().command({
      configureFailPoint: 'failCommand',
      mode: 'alwaysOn',
      data: { failCommands: ['insert', 'update', 'findAndModify', 'delete'], errorCode: 14031, errmsg: 'Write failed: the disk holding the data directory is full' },
    })
  })
  after(async () => {
    await db.admin().command({ configureFailPoint: 'failCommand', mode: 'off' })
    await t.close()
  })

  it('is 507 with a detail on create, replace, update and delete', async () => {
    const writes = [
      { method: 'POST' as const, url: '/users', payload: { ...aliceInput, name: 'bob' } },
      { method: 'PUT' as const, url: `/users/${alice.id}`, payload: { ...aliceInput, name: 'alicia' } },
      { method: 'PATCH' as const, url: `/users/${alice.id}`, payload: { name: 'alicia' } },
      { method: 'DELETE' as const, url: `/users/${alice.id}` },
    ]
    for (const write of writes) expectDetail(await t.app.inject(write), 507, NO_ROOM)
  })

  it('leaves reads answering, the documents as they were', async () => {
    const one = await t.app.inject({ method: 'GET', url: `/users/${alice.id}` })
    assert.equal(one.statusCode, 200)
    assert.equal(one.json().name, 'alice')
    const list = await t.app.inject({ method: 'GET', url: '/users' })
    assert.deepEqual(
      list.json().map((user: Json) => user.name),
      ['alice']
    )
  })
})
