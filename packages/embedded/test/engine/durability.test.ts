import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { openEmbedded } from '../../src/open-embedded.ts'
import { makeTempDir } from './engines.ts'

const here = dirname(fileURLToPath(import.meta.url))
const child = join(here, 'fixtures', 'write-acked.ts')
const KILL_AFTER_ACKS = 200

/** Runs the writer child until it has acked `acks` writes, then kill -9s it. */
function runAndKill(dir: string, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dir], { cwd: join(here, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
    const acked: number[] = []
    let buffered = ''
    let stderr = ''
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    proc.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        const match = /^acked (\d+)$/.exec(line)
        if (match) acked.push(Number(match[1]))
      }
      if (acked.length >= acks && proc.exitCode === null) proc.kill('SIGKILL')
    })
    proc.on('error', reject)
    proc.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${String(signal)}): ${stderr}`))
      else resolve(acked)
    })
  })
}

describe('durability (lmdb)', () => {
  let dir: string | undefined
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('keeps every acknowledged write after kill -9 of the writing process', async () => {
    dir = await makeTempDir('durable')
    const acked = await runAndKill(dir, KILL_AFTER_ACKS)
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
