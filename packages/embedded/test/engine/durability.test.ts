import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, describe, it } from 'node:test'
import { openEmbedded } from '../../src/open-embedded.ts'
import { makeTempDir } from './engines.ts'
import { runAndKill } from './kill-after-acks.ts'

const KILL_AFTER_ACKS = 200


describe('durability (lmdb)', () => {
  let dir: string | undefined
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('keeps every acknowledged write after kill -9 of the writing process', async () => {
    dir = await makeTempDir('durable')
    const acked = await runAndKill('write-acked.ts', dir, KILL_AFTER_ACKS)
    assert.ok(acked.length >= KILL_AFTER_ACKS, `only ${acked.length} acks`)

    const db = await openEmbedded({ path: dir })
    try {
      const coll = db.collection('acked')
      const found = await coll.find({ _id: { $in: acked } }).toArray()
      const missing = acked.filter((id) => !found.some((doc) => doc['_id'] === id))
      assert.deepEqual(missing, [], 'acknowledged documents lost')
      for (const doc of found) {
        const id = doc['_id'] as number
        assert.deepEqual(doc, { _id: id, at: new Date(id), payload: `doc-${id}` })
      }
      // The reopened store stays writable after the crash.
      await coll.insertOne({ _id: -1 })
      assert.equal((await coll.findOne({ _id: -1 }))?.['_id'], -1)
    } finally {
      await db.close()
    }
  })
})
