import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { openEmbedded, startWireServer } from '../../src/index.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
// The workspace hoists devDependencies to the root node_modules; resolve the bin wherever it is.
const mongosh = createRequire(import.meta.url).resolve('mongosh/bin/mongosh.js')
const run = promisify(execFile)

/** Runs `mongosh <uri> --eval <script>` and returns its stdout. */
async function evalMongosh(uri: string, script: string): Promise<string> {
  const { stdout } = await run(mongosh, [uri, '--quiet', '--norc', '--eval', script], { timeout: 60_000, env: { ...process.env, MONGOSH_SKIP_NODE_VERSION_CHECK: '1' } })
  return stdout.trim()
}

describe('fastify-mongo-crud-db, driven by mongosh', () => {
  let child: ChildProcess
  let uri: string
  let dir: string

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-cli-'))
    child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    const lines = createInterface({ input: child.stdout! })
    const [first] = (await once(lines, 'line')) as [string]
    uri = first
  })

  after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
    await rm(dir, { recursive: true, force: true })
  })

  it('prints the URI first, on loopback', () => {
    assert.match(uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/)
  })

  it('lets mongosh insert, find, update and delete', async () => {
    const out = await evalMongosh(uri, `
      db.people.insertMany([{ name: 'ada', age: 36 }, { name: 'bob', age: 20 }, { name: 'cy', age: 50 }]);
      db.people.updateOne({ name: 'bob' }, { $inc: { age: 1 } });
      db.people.deleteOne({ name: 'cy' });
      print(EJSON.stringify(db.people.find({}, { _id: 0 }).sort({ age: 1 }).toArray()));
      print(db.people.countDocuments());
    `)
    const lines = out.split('\n')
    assert.deepEqual(JSON.parse(lines.at(-2)!), [{ name: 'bob', age: 21 }, { name: 'ada', age: 36 }])
    assert.equal(lines.at(-1), '2')
  })

  it('stops cleanly on SIGTERM and keeps the data on disk', async () => {
    child.kill('SIGTERM')
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
    const again = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--port', '0', '--path', dir], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      const [first] = (await once(createInterface({ input: again.stdout! }), 'line')) as [string]
      assert.equal(await evalMongosh(first, 'print(db.people.countDocuments())'), '2')
    } finally {
      again.kill('SIGINT')
      const [exit] = await once(again, 'exit')
      assert.equal(exit, 0)
    }
  })
})

describe('mongosh against a server started with replSet', () => {
  it("runs rs.status(), rs.conf() and rs.initiate() (already initialized) as against an initiated mongod's", async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine, { replSet: 'rs0' })
    try {
      const script = 'let i; try { i = rs.initiate().ok } catch (e) { i = e.codeName }; print(JSON.stringify([rs.status().set, rs.status().members[0].stateStr, rs.conf()._id, i, db.hello().setName]))'
      assert.deepEqual(JSON.parse(await evalMongosh(`${server.uri}?replicaSet=rs0`, script)), ['rs0', 'PRIMARY', 'rs0', 'AlreadyInitialized', 'rs0'])
    } finally {
      await server.close()
      await engine.close()
    }
  })
})
