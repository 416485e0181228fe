import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { open } from 'lmdb'
import { MongoClient } from 'mongodb'
import { openEmbedded } from '../../src/store/embedded/open-embedded.ts'
import { LOCK_FILE } from '../../src/store/embedded/persist/directory-lock.ts'
import { makeTempDir } from './engines.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = join(root, 'src/cli/main.ts')

interface Served {
  child: ChildProcess
  uri: string
}

/** Starts `fastify-mongo-crud db --path dir` and waits for its first line (the URI): it is ready. */
async function serve(dir: string): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'db', '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const lines = createInterface({ input: child.stdout! })
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`db exited (${String(code)}) before it was ready: ${stderr}`)))
  })
  return { child, uri: await first }
}

/** Runs the CLI on `dir` expecting it to fail at once; its exit code and stderr. */
async function refused(dir: string): Promise<{ code: number | null, stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'db', '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let stdout = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    // A second server that started would never exit on its own: stop it so the test fails, not hangs.
    child.kill('SIGTERM')
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  assert.equal(stdout, '', 'the second process must not start serving')
  return { code, stderr }
}

async function stop(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return
  served.child.kill('SIGTERM')
  await once(served.child, 'exit')
}

/** A second process using the wire server: inserts one document with the official driver. */
async function insertFromAnotherProcess(uri: string, doc: object): Promise<string> {
  const script = `
    import { MongoClient } from 'mongodb'
    const client = new MongoClient(process.argv[1])
    try {
      await client.db('app').collection('users').insertOne(JSON.parse(process.argv[2]))
      console.log('inserted')
    } catch (error) {
      console.log('error ' + error.code)
    } finally {
      await client.close()
    }
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, uri, JSON.stringify(doc)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  await once(child, 'exit')
  return out.trim()
}

describe('one data directory, one process', { timeout: 60_000 }, () => {
  const dirs: string[] = []
  const running: Served[] = []
  after(async () => {
    for (const served of running) await stop(served)
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })
  async function tempDir(): Promise<string> {
    const dir = await makeTempDir('lock')
    dirs.push(dir)
    return dir
  }

  it('refuses a second process on a directory another one serves, naming its pid and the directory', async () => {
    const dir = await tempDir()
    const first = await serve(dir)
    running.push(first)
    const second = await refused(dir)
    assert.equal(second.code, 1)
    assert.match(second.stderr, new RegExp(`process ${first.child.pid}\\b`))
    assert.ok(second.stderr.includes(dir), second.stderr)
    await assert.rejects(openEmbedded({ path: dir }), (error: Error & { code?: unknown }) => {
      assert.equal(error.code, 98)
      assert.ok(error.message.includes(`process ${first.child.pid}`), error.message)
      assert.ok(error.message.includes(dir), error.message)
      return true
    })
    await stop(first)
  })

  it('lets several processes share the data through one wire server, unique indexes included', async () => {
    const dir = await tempDir()
    const server = await serve(dir)
    running.push(server)
    const client = new MongoClient(server.uri)
    try {
      const users = client.db('app').collection('users')
      await users.createIndex({ email: 1 }, { unique: true })
      assert.equal(await insertFromAnotherProcess(server.uri, { _id: 1, email: 'a@x' }), 'inserted')
      assert.equal(await insertFromAnotherProcess(server.uri, { _id: 2, email: 'a@x' }), 'error 11000')
      await assert.rejects(users.insertOne({ _id: 3, email: 'a@x' } as object), { code: 11000 })
      assert.deepEqual(await users.find({}).toArray(), [{ _id: 1, email: 'a@x' }])
    } finally {
      await client.close()
    }
    await stop(server)
    const reopened = await openEmbedded({ path: dir })
    try {
      assert.deepEqual(await reopened.db('app').collection('users').find({}).toArray(), [{ _id: 1, email: 'a@x' }])
    } finally {
      await reopened.close()
    }
  })

  it('takes over the lock of a holder killed with kill -9, keeping its acknowledged writes', async () => {
    const dir = await tempDir()
    const holder = await serve(dir)
    running.push(holder)
    const client = new MongoClient(holder.uri)
    try {
      await client.db('embedded').collection('kept').insertOne({ _id: 1 } as object)
    } finally {
      await client.close()
    }
    holder.child.kill('SIGKILL')
    await once(holder.child, 'exit')
    assert.ok(existsSync(join(dir, LOCK_FILE)), 'the killed holder leaves its lock file behind')
    const db = await openEmbedded({ path: dir })
    try {
      assert.deepEqual(await db.collection('kept').find({}).toArray(), [{ _id: 1 }])
      const other = await refused(dir)
      assert.match(other.stderr, new RegExp(`process ${process.pid}\\b`))
    } finally {
      await db.close()
    }
  })

  it('releases the lock on close, so another process can open the directory', async () => {
    const dir = await tempDir()
    const db = await openEmbedded({ path: dir })
    await db.collection('c').insertOne({ _id: 1 })
    await db.close()
    assert.equal(existsSync(join(dir, LOCK_FILE)), false)
    const next = await serve(dir)
    running.push(next)
    await stop(next)
  })
})

describe('duplicates under a unique index, found on disk', () => {
  it('makes the collection fail with an error naming the collection, the index and the value', async () => {
    const dir = await makeTempDir('dups')
    try {
      const db = await openEmbedded({ path: dir })
      await db.collection('users').insertOne({ _id: 1, email: 'a@x' })
      await db.collection('users').insertOne({ _id: 2, email: 'a@x' })
      await db.collection('fine').createIndex({ email: 1 }, { unique: true })
      await db.collection('fine').insertOne({ _id: 1, email: 'a@x' })
      await db.close()
      // What two processes writing one directory used to leave behind: an index defined by one,
      // while the other stored a second document with the same key.
      const raw = open({ path: dir, maxDbs: 1000 })
      await raw.openDB('catalog', {}).put('indexes:users', [{ name: 'email_1', key: { email: 1 }, unique: true }])
      await raw.close()

      const reopened = await openEmbedded({ path: dir })
      try {
        const corrupt = (error: Error & { code?: unknown }) => {
          assert.equal(error.code, 301)
          for (const part of ['embedded.users', 'email_1', '"a@x"']) assert.ok(error.message.includes(part), error.message)
          return true
        }
        await assert.rejects(reopened.collection('users').findOne({ email: 'a@x' }), corrupt)
        await assert.rejects(reopened.collection('users').insertOne({ _id: 3, email: 'b@x' }), corrupt)
        await assert.rejects(reopened.collection('users').find({}).toArray(), corrupt)
        assert.equal((await reopened.collection('fine').findOne({ email: 'a@x' }))?.['_id'], 1)
        // The repair the error advises: drop the index, and the documents are reachable again.
        assert.equal(await reopened.collection('users').dropIndex('email_1'), true)
        assert.equal(await reopened.collection('users').countDocuments({ email: 'a@x' }), 2)
        await reopened.collection('users').deleteOne({ _id: 2 })
        await reopened.collection('users').createIndex({ email: 1 }, { unique: true })
        await assert.rejects(reopened.collection('users').insertOne({ _id: 4, email: 'a@x' }), { code: 11000 })
      } finally {
        await reopened.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
