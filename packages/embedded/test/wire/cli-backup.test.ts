// `fastify-mongo-crud-db backup <dir> <dest>`: a consistent copy of a live data directory, which
// restores by being served (README, "Backup and restore").
import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { makeTempDir } from '../engine/engines.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const main = join(root, 'src/cli/main.ts')

/** Runs the command to its end. */
async function run(args: string[]): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = await once(child, 'close')
  return { code: code as number | null, stdout, stderr }
}

/** Serves `dir`; answers the child and a connected client. */
async function serve(dir: string): Promise<{ child: ChildProcessWithoutNullStreams, client: MongoClient }> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--path', dir], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] })
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next()
  if (first.done) throw new Error('the server did not start')
  return { child, client: await MongoClient.connect(first.value) }
}

async function stop(served: { child: ChildProcessWithoutNullStreams, client: MongoClient }): Promise<number | null> {
  await served.client.close()
  const exited = once(served.child, 'exit')
  served.child.kill('SIGINT')
  return (await exited)[0] as number | null
}

describe('fastify-mongo-crud-db backup', { timeout: 180_000 }, () => {
  let work: string
  let data: string
  let served: Awaited<ReturnType<typeof serve>>
  /** Ids written, in order, one at a time, while the backups run. */
  let written = 0
  let writing: Promise<void>
  let stopWriting = false

  before(async () => {
    work = await makeTempDir('backup')
    data = join(work, 'data')
    served = await serve(data)
    const docs = served.client.db('app').collection('docs')
    await docs.createIndex({ email: 1 }, { unique: true })
    let started = () => {}
    const someWritten = new Promise<void>((resolve) => {
      started = resolve
    })
    writing = (async () => {
      while (!stopWriting) {
        await docs.insertOne({ _id: written, email: `user${written}@example.com`, text: 'x'.repeat(500) } as never)
        written++
        if (written === 200) started()
      }
    })()
    // Some data before the first backup; the writes go on during the backups.
    await someWritten
  })
  after(async () => {
    stopWriting = true
    await writing
    await stop(served)
    await rm(work, { recursive: true, force: true })
  })

  /** The backup served (a restore): every id from 0 to its last, with its unique index. */
  async function assertRestores(backup: string): Promise<void> {
    const restored = await serve(backup)
    try {
      const docs = restored.client.db('app').collection('docs')
      const count = await docs.countDocuments()
      assert.ok(count >= 200, `only ${count} documents`)
      // One snapshot: the ids written one at a time are a prefix, none missing in between.
      const ids = (await docs.find({}, { projection: { _id: 1 }, sort: { _id: 1 } }).toArray()).map((doc) => doc['_id'])
      assert.deepEqual(ids, Array.from({ length: count }, (_, i) => i))
      assert.deepEqual(await docs.findOne({ email: 'user7@example.com' }), { _id: 7, email: 'user7@example.com', text: 'x'.repeat(500) })
      await assert.rejects(docs.insertOne({ email: 'user7@example.com' }), { code: 11000 })
    } finally {
      assert.equal(await stop(restored), 0)
    }
  }

  it('copies a directory a server is writing to, as one snapshot that restores by being served', async () => {
    const backup = join(work, 'backup')
    const { code, stdout, stderr } = await run(['backup', data, backup])
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^fastify-mongo-crud-db: backed up .*data to .*backup\/data\.mdb \(\d+ bytes\), one consistent snapshot\. Serve it with --dbpath to restore it\.\n$/)
    await assertRestores(backup)
  })

  it('with --compact too', async () => {
    const backup = join(work, 'compact')
    const { code, stderr } = await run(['backup', data, backup, '--compact'])
    assert.equal(code, 0, stderr)
    await assertRestores(backup)
  })

  it('refuses a destination that holds anything, and a source that is not a data directory', async () => {
    const taken = join(work, 'taken')
    mkdirSync(taken)
    writeFileSync(join(taken, 'note.txt'), 'an earlier backup')
    const refused = await run(['backup', data, taken])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /The backup's destination .*taken is not empty: name a new directory, so no earlier backup is overwritten/)
    const missing = await run(['backup', join(work, 'nothing'), join(work, 'out')])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /nothing is not a data directory: it holds no data\.mdb/)
  })

  it('needs both directories, and takes no server flag (exit 2 with the usage)', async () => {
    const one = await run(['backup', data])
    assert.equal(one.code, 2)
    assert.match(one.stderr, /backup needs the data directory and a new directory to copy it to/)
    assert.match(one.stderr, /fastify-mongo-crud-db backup <data directory> <new directory> \[--compact\]/)
    const flag = await run(['backup', data, join(work, 'x'), '--port', '1'])
    assert.equal(flag.code, 2)
    assert.match(flag.stderr, /backup takes no --port: only --compact/)
  })
})
