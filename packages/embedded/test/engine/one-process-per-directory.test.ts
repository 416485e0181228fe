import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, statSync } from 'node:fs'
import { mkdir, open as openFile, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { open } from 'lmdb'
import { MongoClient } from 'mongodb'
import { openEmbedded } from '../../src/open-embedded.ts'
import { LOCK_FILE } from '../../src/storage/directory-lock.ts'
import { makeTempDir } from './engines.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = join(root, 'src/cli/main.ts')

interface Served {
  child: ChildProcess
  uri: string
}

/** Starts `fastify-mongo-crud-db --path dir` and waits for its first line (the URI): it is ready. */
async function serve(dir: string): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
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
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
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

/** A second process using the wire server: inserts each document with the official driver, one line per insert. */
async function insertFromAnotherProcess(uri: string, docs: object[]): Promise<string[]> {
  const script = `
    import { MongoClient } from 'mongodb'
    const client = new MongoClient(process.argv[1])
    try {
      for (const doc of JSON.parse(process.argv[2])) {
        try {
          await client.db('app').collection('users').insertOne(doc)
          console.log('inserted')
        } catch (error) {
          console.log('error ' + error.code)
        }
      }
    } finally {
      await client.close()
    }
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, uri, JSON.stringify(docs)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  await once(child, 'exit')
  return out.trim().split('\n')
}

/**
 * One directory through the life of its lock, in order (each step starts a process, which is
 * slow, so the steps share them): served by `db`, refused to a second process, shared through
 * the wire server, its holder killed with kill -9, taken over, released on close.
 */
describe('one data directory, one process', { timeout: 120_000 }, () => {
  const dirs: string[] = []
  const running: Served[] = []
  let dir: string
  let server: Served
  before(async () => {
    dir = await tempDir()
    server = await serve(dir)
    running.push(server)
  })
  after(async () => {
    for (const served of running) await stop(served)
    for (const made of dirs) await rm(made, { recursive: true, force: true })
  })
  async function tempDir(): Promise<string> {
    const made = await makeTempDir('lock')
    dirs.push(made)
    return made
  }

  it('refuses a second process on a directory another one serves, naming its pid and the directory', async () => {
    const second = await refused(dir)
    assert.equal(second.code, 1)
    assert.match(second.stderr, new RegExp(`process ${server.child.pid}\\b`))
    assert.ok(second.stderr.includes(dir), second.stderr)
    await assert.rejects(openEmbedded({ path: dir }), (error: Error & { code?: unknown }) => {
      assert.equal(error.code, 98)
      assert.ok(error.message.includes(`process ${server.child.pid}`), error.message)
      assert.ok(error.message.includes(dir), error.message)
      // The command it names is one that exists: the engine package's bin.
      assert.ok(error.message.includes('(fastify-mongo-crud-db)'), error.message)
      return true
    })
  })

  it('lets several processes share the data through one wire server, unique indexes included', async () => {
    const client = new MongoClient(server.uri)
    try {
      const users = client.db('app').collection('users')
      await users.createIndex({ email: 1 }, { unique: true })
      assert.deepEqual(await insertFromAnotherProcess(server.uri, [{ _id: 1, email: 'a@x' }, { _id: 2, email: 'a@x' }]), ['inserted', 'error 11000'])
      await assert.rejects(users.insertOne({ _id: 3, email: 'a@x' } as object), { code: 11000 })
      assert.deepEqual(await users.find({}).toArray(), [{ _id: 1, email: 'a@x' }])
    } finally {
      await client.close()
    }
  })

  it('takes over the lock of a holder killed with kill -9, keeping its acknowledged writes', async () => {
    server.child.kill('SIGKILL')
    await once(server.child, 'exit')
    assert.ok(existsSync(join(dir, LOCK_FILE)), 'the killed holder leaves its lock file behind')
    const db = await openEmbedded({ path: dir })
    try {
      assert.deepEqual(await db.db('app').collection('users').find({}).toArray(), [{ _id: 1, email: 'a@x' }])
      // Now this process holds it, and says so to the next one.
      const other = await refused(dir)
      assert.match(other.stderr, new RegExp(`process ${process.pid}\\b`))
    } finally {
      await db.close()
    }
  })

  it('releases the lock on close, so another process can open the directory', async () => {
    assert.equal(existsSync(join(dir, LOCK_FILE)), false)
    const next = await serve(dir)
    running.push(next)
    await stop(next)
  })

})

describe('locks left behind', () => {
  const dirs: string[] = []
  after(async () => {
    for (const made of dirs) await rm(made, { recursive: true, force: true })
  })
  async function tempDir(): Promise<string> {
    const made = await makeTempDir('left')
    dirs.push(made)
    return made
  }

  /** A lock file as a process that did not close (killed, or on another host) leaves it. */
  async function leftLock(dir: string, holder: object): Promise<void> {
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ token: 'left', ...holder }))
  }

  it('takes over a lock naming this pid that this process does not hold (a restarted container is pid 1 again)', async () => {
    const dir = await tempDir()
    await leftLock(dir, { pid: process.pid, host: hostname() })
    const db = await openEmbedded({ path: dir })
    await db.close()
  })

  it('takes over a lock whose pid now belongs to another process, started later', { skip: !existsSync('/proc/self/stat') }, async () => {
    const dir = await tempDir()
    await leftLock(dir, { pid: process.ppid, host: hostname(), started: '1' })
    const db = await openEmbedded({ path: dir })
    await db.close()
  })

  it('takes over a lock whose holder exited but was not reaped (a zombie: a container without an init to reap it)', { skip: !existsSync('/proc/self/stat') }, async (t) => {
    const dir = await tempDir()
    // `cat` runs in the background, then its shell becomes `sleep`, which never reaps it: once `cat`
    // exits (its fifo closed), it stays a zombie, as a killed engine does under a pid 1 that reaps nothing.
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const parent = spawn('sh', ['-c', 'cat "$1" > /dev/null & echo $!; exec sleep 60', 'sh', fifo], { stdio: ['ignore', 'pipe', 'ignore'] })
    t.after(() => parent.kill('SIGKILL'))
    const [line] = (await once(createInterface({ input: parent.stdout! }), 'line')) as [string]
    const pid = Number(line)
    await (await openFile(fifo, 'w')).close()
    const fields = async () => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    }
    // Waits until it has exited (state Z); bounded, not timed: each check is a read of /proc.
    for (let check = 0; check < 10_000 && (await fields())[0] !== 'Z'; check++) await new Promise((resolve) => setImmediate(resolve))
    const [state, , , , , , , , , , , , , , , , , , , started] = await fields()
    assert.equal(state, 'Z')
    await leftLock(dir, { pid, host: hostname(), started })
    const db = await openEmbedded({ path: dir })
    await db.close()
  })

  it('refuses a lock from another host, which it cannot check, naming the host and the lock file', async () => {
    const dir = await tempDir()
    await leftLock(dir, { pid: 4242, host: 'elsewhere.invalid' })
    await assert.rejects(openEmbedded({ path: dir }), (error: Error & { code?: unknown }) => {
      assert.equal(error.code, 98)
      for (const part of ['process 4242 on host elsewhere.invalid', join(dir, LOCK_FILE)]) assert.ok(error.message.includes(part), error.message)
      return true
    })
  })

  it('refuses a second engine on one directory in the same process', async () => {
    const dir = await tempDir()
    const db = await openEmbedded({ path: dir })
    try {
      await assert.rejects(openEmbedded({ path: dir }), (error: Error & { code?: unknown }) => {
        assert.equal(error.code, 98)
        assert.ok(error.message.includes(`this process (process ${process.pid})`), error.message)
        return true
      })
    } finally {
      await db.close()
    }
  })
})

describe('a data directory whose name has a dot', { timeout: 60_000 }, () => {
  it('is a directory, served by db --path and reopened with its data', async () => {
    const parent = await makeTempDir('dotted')
    const dir = join(parent, 'data.v1')
    try {
      const served = await serve(dir)
      const client = new MongoClient(served.uri)
      try {
        await client.db('embedded').collection('kept').insertOne({ _id: 1 } as object)
      } finally {
        await client.close()
        await stop(served)
      }
      assert.ok(statSync(dir).isDirectory())
      const db = await openEmbedded({ path: dir })
      try {
        assert.deepEqual(await db.collection('kept').find({}).toArray(), [{ _id: 1 }])
      } finally {
        await db.close()
      }
    } finally {
      await rm(parent, { recursive: true, force: true })
    }
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
