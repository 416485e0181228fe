import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { decodeDocument } from '../../src/bson/bson-codec.ts'
import { toValueKey } from '../../src/bson/value-key.ts'
import type { Document } from '../../src/document.ts'
import { EmbeddedDb } from '../../src/embedded-db.ts'
import { ENTRY_FORMAT } from '../../src/indexes/index-catalog.ts'
import { entryPrefixOf, indexKeysOf } from '../../src/indexes/index-keys.ts'
import { LmdbStorage } from '../../src/storage/lmdb-storage.ts'
import { MemoryStorage } from '../../src/storage/memory-storage.ts'
import { entryKeyOf } from '../../src/storage/sorted-entries.ts'
import type { Storage } from '../../src/storage/storage.ts'
import { makeTempDir } from './engines.ts'
import { INDEXES, runRandomWrites, type WriteEvent } from './fixtures/random-writes.ts'

const here = dirname(fileURLToPath(import.meta.url))
const child = join(here, 'fixtures', 'random-writer.ts')
const WRITES = 10_000
const KILL_AFTER_ACKS = 10_000

/** Every document of the collection, by storage key. */
function documentsOf(storage: Storage, collection: string): Map<string, Document> {
  const docs = new Map<string, Document>()
  const walk = storage.collection(collection).scan()
  for (let next = walk.next(); !next.done; next = walk.next()) {
    const doc = decodeDocument(next.value)
    docs.set(toValueKey(doc['_id']), doc)
  }
  return docs
}

/** Each index holds exactly the entries a full scan computes, in key order. */
function assertIndexesMatch(storage: Storage, collection: string): Map<string, Document> {
  const docs = documentsOf(storage, collection)
  const definitions = storage.readIndexes(collection)
  assert.equal(definitions.length, INDEXES.length)
  for (const definition of definitions) {
    assert.equal(definition.built, true, definition.name)
    assert.equal(definition.format, ENTRY_FORMAT, definition.name)
    const fields = Object.entries(definition.key).map(([field, dir]) => [field, dir === -1 ? -1 : 1] as [string, 1 | -1])
    const expected = [...docs].flatMap(([docKey, doc]) => indexKeysOf(doc, fields).keys.map((key) => ({ entry: entryKeyOf(entryPrefixOf(key.bytes, doc['_id']), docKey), docKey })))
    expected.sort((x, y) => Buffer.compare(x.entry, y.entry))
    const actual: string[] = []
    const walk = storage.collection(collection).indexRange(definition.name, {})
    for (let next = walk.next(); !next.done; next = walk.next()) actual.push(next.value[1])
    assert.equal(actual.length, expected.length, `${definition.name}: entry count`)
    assert.deepEqual(actual, expected.map((entry) => entry.docKey), `${definition.name}: entries`)
  }
  return docs
}

describe('indexes agree with documents after random writes', () => {
  it(`in memory, after ${WRITES} writes`, { timeout: 120_000 }, async () => {
    const storage = new MemoryStorage()
    const db = new EmbeddedDb(storage, 'embedded')
    await runRandomWrites(db.collection('random'), { seed: 1, writes: WRITES, writers: 8, onAck: () => {} })
    assertIndexesMatch(storage, 'random')
    await db.close()
  })
})

/** Runs the random writer child until `acks` writes are acknowledged, then kill -9s it. */
function runAndKill(dir: string, acks: number): Promise<{ started: WriteEvent[], acked: WriteEvent[] }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dir], { cwd: join(here, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
    const started: WriteEvent[] = []
    const acked: WriteEvent[] = []
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
        const match = /^(start|ack) (\d+) (\w+) (-?\d+)$/.exec(line)
        if (!match) continue
        const event = { seq: Number(match[2]), op: match[3] as WriteEvent['op'], id: Number(match[4]) }
        ;(match[1] === 'ack' ? acked : started).push(event)
      }
      if (acked.length >= acks && proc.exitCode === null) proc.kill('SIGKILL')
    })
    proc.on('error', reject)
    proc.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${String(signal)}): ${stderr}`))
      else resolve({ started, acked })
    })
  })
}

describe('indexes agree with documents after kill -9 (lmdb)', () => {
  it(`keeps every acknowledged write and consistent indexes after ${KILL_AFTER_ACKS} acknowledged random writes`, { timeout: 120_000 }, async () => {
    const dir = await makeTempDir('random-kill')
    try {
      const { started, acked } = await runAndKill(dir, KILL_AFTER_ACKS)
      assert.ok(acked.length >= KILL_AFTER_ACKS, `only ${acked.length} acks`)
      const storage = new LmdbStorage(dir)
      let docs: Map<string, Document>
      try {
        docs = assertIndexesMatch(storage, 'random')
      } finally {
        await storage.close()
      }
      const deleting = new Set(started.filter((event) => event.op === 'delete').map((event) => event.id))
      const lastAcked = new Map<number, WriteEvent>()
      for (const event of acked) if ((lastAcked.get(event.id)?.seq ?? -1) < event.seq) lastAcked.set(event.id, event)
      for (const [id, event] of lastAcked) {
        const doc = docs.get(toValueKey(id))
        if (event.op === 'delete') {
          assert.equal(doc, undefined, `document ${id}: its acknowledged delete was lost`)
          continue
        }
        // Absent only when a delete of it had started (it may have landed unacknowledged).
        if (doc === undefined) assert.ok(deleting.has(id), `document ${id}: acknowledged write ${event.seq} lost`)
        else assert.ok((doc['v'] as number) >= event.seq, `document ${id}: holds write ${String(doc['v'])}, write ${event.seq} was acknowledged`)
      }
      // The reopened directory stays usable.
      const db = new EmbeddedDb(new LmdbStorage(dir), 'embedded')
      try {
        await db.collection('random').insertOne({ _id: -1, u: 'fresh', a: 1 })
        assert.equal((await db.collection('random').findOne({ a: 1, _id: -1 }))?.['u'], 'fresh')
      } finally {
        await db.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
