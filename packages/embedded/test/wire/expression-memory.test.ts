import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Document, MongoClient, MongoServerError } from 'mongodb'
import { type EmbeddedDb, openEmbedded, startWireServer, type WireServer } from '../../src/index.ts'

/**
 * One aggregate used to abort the wire server's process (`$range: [0, 4e8]`: V8's "invalid size"
 * error, which no try/catch sees), and every client lost its server. The server runs in a child
 * process here, so that a request that still aborted it would fail the test, not kill it: the
 * client must get MongoDB's ExceededMemoryLimit (146), and the server must go on serving.
 */

/** Documents with `_id`s of any type (the driver's default schema expects ObjectIds). */
type Row = { _id: unknown, [field: string]: unknown }

const root = fileURLToPath(new URL('../..', import.meta.url))
const cli = join(root, 'src/cli/main.ts')

interface Served {
  child: ChildProcess
  uri: string
  stderr: () => string
}

/** `fastify-mongo-crud-db --port 0` in a child process (with `nodeFlags`), once it printed its URI. */
async function serve(nodeFlags: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', cli, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const lines = createInterface({ input: child.stdout! })
  const uri = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`the server exited (${String(code)}) before it was ready: ${stderr}`)))
  })
  return { child, uri, stderr: () => stderr }
}

/** Stops the server the way its user would; it must still be running, and exit cleanly. */
async function stop(served: Served): Promise<void> {
  assert.equal(served.child.exitCode, null, `the server died: ${served.stderr()}`)
  assert.equal(served.child.signalCode, null, `the server died: ${served.stderr()}`)
  served.child.kill('SIGINT')
  const [code] = await once(served.child, 'exit')
  assert.equal(code, 0)
}

const exceeded = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof MongoServerError, String(error))
  assert.equal(error.code, 146)
  assert.equal(error.codeName, 'ExceededMemoryLimit')
  assert.match(error.message, pattern)
  return true
}

/** The server answers every client after the refusal: a write, and a read of it by another connection. */
async function stillServes(uri: string, clients: MongoClient[]): Promise<void> {
  const [first, second] = clients
  await first!.db('test').collection<Row>('after').insertOne({ _id: 1, ok: true })
  assert.deepEqual(await second!.db('test').collection('after').find({}).toArray(), [{ _id: 1, ok: true }])
  const fresh = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 60_000 })
  await fresh.db('admin').command({ ping: 1 })
  await fresh.close()
}

describe('a hostile aggregate over the wire, against the server in a child process', { timeout: 120_000 }, () => {
  it("answers the issue's $range of 4e8 with ExceededMemoryLimit, and keeps serving every client", async () => {
    const served = await serve()
    const clients = [new MongoClient(served.uri, { serverSelectionTimeoutMS: 60_000 }), new MongoClient(served.uri, { serverSelectionTimeoutMS: 60_000 })]
    try {
      for (const client of clients) await client.connect()
      const attack = clients[0]!.db('test').aggregate([{ $documents: [{}] }, { $project: { a: { $range: [0, 4e8] } } }])
      await assert.rejects(attack.toArray(), exceeded(/^\$range would use too much memory \(6400000000 bytes\) and cannot spill to disk\. Memory limit: 104857600 bytes$/))
      await stillServes(served.uri, clients)
    } finally {
      for (const client of clients) await client.close()
    }
    await stop(served)
  })

  it('refuses values that each fit their limit once the heap is two fifths of its limit, and keeps serving', async () => {
    // 600 arrays of 100,000 numbers: about 600 MB, far past a 192 MB heap, each well under 100 MB. The
    // `$group` holds them all at once: without it the arrays stream out one by one, each dropped once sent.
    const served = await serve(['--max-old-space-size=192'])
    const clients = [new MongoClient(served.uri, { serverSelectionTimeoutMS: 60_000 }), new MongoClient(served.uri, { serverSelectionTimeoutMS: 60_000 })]
    try {
      for (const client of clients) await client.connect()
      const many = clients[0]!.db('test').aggregate([{ $documents: Array.from({ length: 600 }, (_, i) => ({ i })) }, { $project: { a: { $range: [0, 100_000] } } }, { $group: { _id: '$i', a: { $first: '$a' } } }])
      await assert.rejects(many.toArray(), exceeded(/^\$range would use \d+ more bytes while the process heap holds \d+ of its \d+ bytes/))
      await stillServes(served.uri, clients)
    } finally {
      for (const client of clients) await client.close()
    }
    await stop(served)
  })
})

describe('expression memory limits over the wire', () => {
  const LIMIT = 100_000
  let engine: EmbeddedDb
  let server: WireServer
  let client: MongoClient
  before(async () => {
    engine = await openEmbedded({ expressionMemoryLimitBytes: LIMIT })
    server = await startWireServer(engine)
    client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 60_000 })
    await client.db('test').collection<Row>('rows').insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, pad: 'x'.repeat(200) })))
  })
  after(async () => {
    await client.close()
    await server.close()
    await engine.close()
  })

  const aggregate = (pipeline: Document[]) => client.db('test').collection('rows').aggregate(pipeline).toArray()
  const twice = (seed: unknown, levels: number, make: (v: string) => unknown) => {
    let expr = seed
    for (let i = 0; i < levels; i++) expr = { $let: { vars: { v: expr }, in: make('$$v') } }
    return expr
  }

  it('answers $push in $group, $concatArrays, $concat and $reduce past the limit with ExceededMemoryLimit', async () => {
    await assert.rejects(aggregate([{ $group: { _id: null, all: { $push: '$$ROOT' } } }]), exceeded(/^\$push used too much memory and cannot spill to disk\. Memory limit: 100000 bytes$/))
    await assert.rejects(aggregate([{ $limit: 1 }, { $project: { a: twice([1], 40, (v) => ({ $concatArrays: [v, v] })) } }]), exceeded(/^\$concatArrays would use/))
    await assert.rejects(aggregate([{ $limit: 1 }, { $project: { a: twice('$pad', 40, (v) => ({ $concat: [v, v] })) } }]), exceeded(/^\$concat would use/))
    const growing = { $reduce: { input: { $range: [0, 100] }, initialValue: [0], in: { $concatArrays: ['$$value', '$$value'] } } }
    await assert.rejects(aggregate([{ $limit: 1 }, { $project: { a: growing } }]), exceeded(/^\$concatArrays would use/))
    assert.equal((await aggregate([{ $group: { _id: null, ids: { $push: '$_id' } } }]))[0]?.['ids'].length, 1000)
  })

  it('answers a result document over 16 MiB with BSONObjectTooLarge, without walking all of it', { timeout: 60_000 }, async () => {
    // 2^40 copies of one string in BSON, a few objects in memory: refused after a bounded walk.
    const doc = await aggregate([{ $limit: 1 }, { $set: { a: twice('$pad', 40, (v) => [v, v]) } }]).catch((error: unknown) => error)
    assert.ok(doc instanceof MongoServerError, String(doc))
    assert.equal(doc.code, 10334)
    assert.equal(doc.codeName, 'BSONObjectTooLarge')
    assert.match(doc.message, /^BSONObj size: \d+ \(0x[0-9a-f]+\) is invalid\. Size must be between 0 and 16793600\(16MB\)$/)
  })
})
