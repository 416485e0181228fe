import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { parseCli, UsageError } from '../../src/cli/parse-args.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const main = join(root, 'src/cli/main.ts')

function start(args: string[]) {
  return spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
}

describe('fastify-mongo-crud-db usage', { timeout: 60_000 }, () => {
  it('prints the usage and exits 2 on a bad argument', async () => {
    const child = start(['--port', 'nope'])
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const [code] = await once(child, 'exit')
    assert.equal(code, 2)
    assert.match(stderr, /--port must be an integer/)
    assert.match(stderr, /Usage: fastify-mongo-crud-db \[--port 27017\] \[--dbpath \.\/data\] \[--bind_ip 127\.0\.0\.1\] \[--auth\]/)
  })

  it('keeps the data in memory without --path, and stops with exit code 0 on SIGINT', async () => {
    const child = start(['--port', '0'])
    const lines = createInterface({ input: child.stdout })
    const seen: string[] = []
    for await (const line of lines) {
      seen.push(line)
      if (seen.length === 2) break
    }
    assert.match(seen[0]!, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/)
    assert.match(seen[1]!, /data in memory/)
    child.kill('SIGINT')
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
  })
})

describe('fastify-mongo-crud-db --replSet', { timeout: 60_000 }, () => {
  it("takes a set's name, and refuses mongod's name/seeds form and names with spaces or commas", () => {
    const command = parseCli(['--replSet', 'rs0'])
    assert.ok(command.command === 'db' && command.replSet === 'rs0')
    const none = parseCli([])
    assert.ok(none.command === 'db' && none.replSet === undefined)
    for (const bad of ['rs0/host:27017', '', 'a b', 'a,b']) assert.throws(() => parseCli(['--replSet', bad]), UsageError, bad)
    const hosted = parseCli(['--replSet', 'rs0', '--replSetHost', 'db.example:27017'])
    assert.ok(hosted.command === 'db' && hosted.replSetHost === 'db.example:27017')
    assert.throws(() => parseCli(['--replSetHost', 'db.example:27017']), /--replSetHost goes with --replSet/)
  })

  it('prints a ?replicaSet= URI that the driver connects with, the server the primary of its set', async () => {
    const child = start(['--port', '0', '--replSet', 'rs0'])
    const lines = createInterface({ input: child.stdout })
    const seen: string[] = []
    for await (const line of lines) {
      seen.push(line)
      if (seen.length === 2) break
    }
    assert.match(seen[0]!, /^mongodb:\/\/127\.0\.0\.1:\d+\/\?replicaSet=rs0$/)
    assert.match(seen[1]!, /primary of the single-node replica set rs0/)
    const client = new MongoClient(seen[0]!, { serverSelectionTimeoutMS: 60_000 })
    try {
      const status = await client.db('admin').command({ replSetGetStatus: 1 })
      assert.equal(status['set'], 'rs0')
      await client.db('test').collection('c').insertOne({ a: 1 })
    } finally {
      await client.close()
    }
    child.kill('SIGINT')
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
  })
})
