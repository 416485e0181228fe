import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, describe, it } from 'node:test'
import { openEmbedded } from '../../src/open-embedded.ts'
import { makeTempDir } from './engines.ts'
import { runAndKill } from './kill-after-acks.ts'

const KILL_AFTER_ACKS = 40
const DOCS = 5


describe('transaction durability (lmdb)', () => {
  let dir: string | undefined
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('keeps every acknowledged transaction whole after kill -9, and no part of one that was not', async () => {
    dir = await makeTempDir('tx-durable')
    const acked = await runAndKill('transaction-acked.ts', dir, KILL_AFTER_ACKS)
    const db = await openEmbedded({ path: dir })
    try {
      const counts = new Map<number, number>()
      for (const name of ['left', 'right']) {
        for (const doc of await db.collection(name).find({}).toArray()) counts.set(doc['batch'] as number, (counts.get(doc['batch'] as number) ?? 0) + 1)
      }
      for (const batch of acked) assert.equal(counts.get(batch), 2 * DOCS, `acknowledged transaction ${batch} is not whole`)
      for (const [batch, count] of counts) assert.equal(count, 2 * DOCS, `transaction ${batch} is stored in part`)
    } finally {
      await db.close()
    }
  })
})
