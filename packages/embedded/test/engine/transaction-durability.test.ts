import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { openEmbedded } from '../../src/open-embedded.ts'
import { makeTempDir } from './engines.ts'

const here = dirname(fileURLToPath(import.meta.url))
const child = join(here, 'fixtures', 'transaction-acked.ts')
const KILL_AFTER_ACKS = 40
const DOCS = 5

/** Runs the child until it has acked `acks` transactions, then kill -9s it; the numbers acked. */
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

describe('transaction durability (lmdb)', () => {
  let dir: string | undefined
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('keeps every acknowledged transaction whole after kill -9, and no part of one that was not', async () => {
    dir = await makeTempDir('tx-durable')
    const acked = await runAndKill(dir, KILL_AFTER_ACKS)
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
