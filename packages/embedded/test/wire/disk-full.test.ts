// A full disk is an error, not a crash: a write the storage has no room for fails with MongoDB's
// OutOfDiskSpace (14031) and stores nothing, reads go on, the server stays up, writes succeed again
// once there is room, and a directory on a full disk opens again (or says exactly why not).
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Collection, MongoClient, MongoServerError } from 'mongodb'
import { fileSizeLimitUnavailable, fillDisk, limitFileSize, mountSmallDisk, smallDiskUnavailable } from '../../../../test/harness/small-disk.ts'
import { openEmbedded } from '../../src/index.ts'
import { makeTempDir } from '../engine/engines.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const main = join(root, 'src/cli/main.ts')

/** Documents of 16 KiB: a small disk fills in a few hundred. */
const PAYLOAD = 'x'.repeat(16 * 1024)

/** A field to index, in 7 values, long enough that an index on it takes many pages. */
const keyOf = (id: number) => `${Math.abs(id % 7)}`.padEnd(400, '-')

/** Ids of 2000 small documents (negative: the large ones count up from 0). */
const SMALL = Array.from({ length: 2000 }, (_, i) => -1 - i)

interface Served {
  child: ChildProcessWithoutNullStreams
  client: MongoClient
  docs: Collection<{ _id: number, k?: string, payload?: string }>
  stderr: () => string
}

/** `fastify-mongo-crud-db --path dir`, and a driver connected to it. */
async function serve(dir: string): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--path', dir], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const first = await lines.next()
  if (first.done) throw new Error(`the server did not start: ${stderr}`)
  const client = await MongoClient.connect(first.value, { serverSelectionTimeoutMS: 30_000 })
  return { child, client, docs: client.db('app').collection('docs'), stderr: () => stderr }
}

async function stop(served: Served, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  await served.client.close()
  if (served.child.exitCode !== null || served.child.signalCode !== null) return served.child.exitCode
  const exited = once(served.child, 'exit')
  served.child.kill(signal)
  const [code] = await exited
  return code as number | null
}

/** Stops what a failed test left running, so its disk can be unmounted. */
async function stopLeft(served: Served | undefined): Promise<void> {
  if (served && served.child.exitCode === null && served.child.signalCode === null) await stop(served, 'SIGKILL')
}

/** Inserts documents one at a time from `from` until one is refused: the ids stored, and the refusal. */
async function insertUntilRefused(served: Served, from: number): Promise<{ acked: number[], refused: number, error: unknown }> {
  const acked: number[] = []
  for (let id = from; id < from + 100_000; id++) {
    try {
      await served.docs.insertOne({ _id: id, k: keyOf(id), payload: PAYLOAD })
      acked.push(id)
    } catch (error) {
      return { acked, refused: id, error }
    }
  }
  throw new Error('no write was refused')
}

/** The refusal is OutOfDiskSpace (a write error: its code, without a codeName, as MongoDB's), saying why. */
function assertOutOfSpace(error: unknown, reason: RegExp): void {
  assert.ok(error instanceof MongoServerError, `expected the server's error, got ${String(error)}`)
  assert.equal(error.code, 14031)
  assert.match(error.message, reason)
  assert.match(error.message, /Nothing of this write was stored/)
}

/** What was acknowledged is there, whole (and `others` more documents); what was refused is not. */
async function assertStored(served: Served, acked: number[], refused: number, others = 0): Promise<void> {
  await served.client.db('admin').command({ ping: 1 })
  assert.equal(await served.docs.countDocuments(), acked.length + others)
  assert.equal(await served.docs.findOne({ _id: refused }), null)
  const last = acked[acked.length - 1]!
  assert.deepEqual(await served.docs.findOne({ _id: last }), { _id: last, k: keyOf(last), payload: PAYLOAD })
}

describe('a full disk (fastify-mongo-crud-db)', { timeout: 300_000 }, () => {
  it('under a file size limit: refuses with OutOfDiskSpace, half-writes nothing (a document, an index, a new collection), serves on, and writes again once the limit is lifted', { skip: fileSizeLimitUnavailable() }, async () => {
    const dir = await makeTempDir('file-size-limit')
    const served = await serve(dir)
    try {
      // Small documents first: an index on `k` then takes 600 KB, far more than the pages left below
      // the limit once a 16 KiB document no longer fits.
      await served.docs.insertMany(SMALL.map((id) => ({ _id: id, k: keyOf(id) })))
      // From here the kernel refuses any write of the server past 1 MiB more of its data file.
      limitFileSize(served.child.pid!, statSync(join(dir, 'data.mdb')).size + 1024 * 1024)
      const { acked, refused, error } = await insertUntilRefused(served, 0)
      assert.ok(acked.length > 10, `only ${acked.length} writes before the limit`)
      assertOutOfSpace(error, /data\.mdb reached the largest file this process may write \(File too large/)
      // Refused again, as often as asked, and the server stays up.
      for (let i = 0; i < 3; i++) await assert.rejects(served.docs.insertOne({ _id: refused, payload: PAYLOAD }), { code: 14031 })
      await assertStored(served, acked, refused, SMALL.length)
      // An index that did not fit is not half there: asked again, it is refused again, and reads stay exact.
      for (let i = 0; i < 2; i++) await assert.rejects(served.docs.createIndex({ k: 1 }), { code: 14031 })
      assert.deepEqual((await served.docs.listIndexes().toArray()).map((index) => index['name']), ['_id_'])
      assert.equal(await served.docs.countDocuments({ k: keyOf(3) }), [...SMALL, ...acked].filter((id) => keyOf(id) === keyOf(3)).length)
      // Nor is a collection whose first write was refused.
      const fresh = served.client.db('app').collection('fresh')
      await assert.rejects(fresh.insertOne({ payload: PAYLOAD }), { code: 14031 })
      limitFileSize(served.child.pid!, 'unlimited')
      await served.docs.insertOne({ _id: refused, k: keyOf(refused), payload: PAYLOAD })
      assert.equal(await served.docs.countDocuments(), SMALL.length + acked.length + 1)
      await served.docs.createIndex({ k: 1 })
      assert.equal(await served.docs.countDocuments({ k: keyOf(3) }), [...SMALL, ...acked, refused].filter((id) => keyOf(id) === keyOf(3)).length)
      await fresh.insertOne({ payload: 'fits' })
      assert.deepEqual((await served.client.db('app').listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort(), ['docs', 'fresh'])
    } finally {
      assert.equal(await stop(served), 0, served.stderr())
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('on a full filesystem: refuses, serves on, writes again once space is freed, and restarts on the full disk', { skip: smallDiskUnavailable() }, async () => {
    const disk = mountSmallDisk(4 * 1024 * 1024)
    const dir = join(disk.dir, 'data')
    const ballast = join(disk.dir, 'ballast')
    writeFileSync(ballast, Buffer.alloc(512 * 1024))
    let served: Served | undefined
    try {
      served = await serve(dir)
      const first = await insertUntilRefused(served, 0)
      assertOutOfSpace(first.error, /the disk holding the data directory .*data is full \(No space left on device\)/)
      await assertStored(served, first.acked, first.refused)
      unlinkSync(ballast)
      const second = await insertUntilRefused(served, first.refused)
      assert.ok(second.acked.length > 0, 'no write succeeded once space was freed')
      const acked = [...first.acked, ...second.acked]
      // Killed on the full disk: its lock stays behind, and there is no room to write another.
      assert.equal(await stop(served, 'SIGKILL'), null)
      served = await serve(dir)
      await assertStored(served, acked, second.refused)
      assert.equal(await stop(served), 0, served.stderr())
    } finally {
      await stopLeft(served)
      disk.unmount()
    }
  })

  it('on a disk with no room even for the lock file: says so and what to do, and a few kilobytes let it serve reads', { skip: smallDiskUnavailable() }, async () => {
    const disk = mountSmallDisk(1024 * 1024)
    const dir = join(disk.dir, 'data')
    let served: Served | undefined
    try {
      served = await serve(dir)
      await served.docs.insertOne({ _id: 1, payload: 'kept' })
      assert.equal(await stop(served), 0, served.stderr())
      const filler = join(disk.dir, 'filler')
      fillDisk(filler)
      const refused = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      refused.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const [code] = await once(refused, 'exit')
      assert.equal(code, 1, stderr)
      assert.match(stderr, /the disk holding the data directory .*data is full \(No space left on device\), and the engine needs a few bytes there for its lock file .*fastify-mongo-crud\.lock\. Free a few kilobytes/)
      await assert.rejects(openEmbedded({ path: dir }), { code: 14031, codeName: 'OutOfDiskSpace' })
      truncateSync(filler, statSync(filler).size - 16 * 1024)
      served = await serve(dir)
      assert.deepEqual(await served.docs.findOne({ _id: 1 }), { _id: 1, payload: 'kept' })
      assert.equal(await stop(served), 0, served.stderr())
    } finally {
      await stopLeft(served)
      disk.unmount()
    }
  })
})
