import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { selfSignedCertificate } from './tls-certificate.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const main = join(root, 'src/cli/main.ts')
const mongosh = createRequire(import.meta.url).resolve('mongosh/bin/mongosh.js')
const run = promisify(execFile)

/** `mongosh <uri> [args] --eval <script>`: its exit code, stdout and stderr (a failed script exits non-zero). */
async function evalMongosh(uri: string, script: string, args: string[] = []): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await run(mongosh, [uri, ...args, '--quiet', '--norc', '--eval', script], { timeout: 60_000, env: { ...process.env, MONGOSH_SKIP_NODE_VERSION_CHECK: '1' } })
    return { code: 0, stdout: stdout.trim(), stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout.trim(), stderr: failed.stderr }
  }
}

/** Starts the command and reads its first lines: the URI, then what it says on starting. */
async function startDb(args: string[], count = 2): Promise<{ child: ChildProcess, uri: string, lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: string[] = []
  const reader = createInterface({ input: child.stdout! })
  reader.on('line', (line) => lines.push(line))
  while (lines.length < count) await once(reader, 'line')
  return { child, uri: lines[0]!, lines }
}

async function stopDb(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit')
}

describe('fastify-mongo-crud-db --auth, driven by mongosh', () => {
  let dir: string
  let db: { child: ChildProcess, uri: string, lines: string[] }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-auth-cli-'))
    db = await startDb(['--dbpath', dir, '--auth'])
  })

  after(async () => {
    await stopDb(db.child)
    await rm(dir, { recursive: true, force: true })
  })

  it('creates the first user from this machine (the localhost exception), then no other without a login', async () => {
    const created = await evalMongosh(db.uri, "db.getSiblingDB('admin').createUser({ user: 'admin', pwd: 'admin-secret', roles: ['root'] }); print('created')")
    assert.equal(created.stdout, 'created', created.stderr)
    const second = await evalMongosh(db.uri, "db.getSiblingDB('admin').createUser({ user: 'sneaky', pwd: 'x', roles: ['root'] })")
    assert.notEqual(second.code, 0)
    assert.match(second.stderr + second.stdout, /requires authentication/)
  })

  it('logs mongosh in with -u/-p; a wrong password is "Authentication failed"; no login reads nothing', async () => {
    const login = ['-u', 'admin', '-p', 'admin-secret', '--authenticationDatabase', 'admin']
    const out = await evalMongosh(db.uri, `
      db.getSiblingDB('shop').items.insertMany([{ _id: 1, price: 5 }, { _id: 2, price: 7 }]);
      db.getSiblingDB('shop').createUser({ user: 'clerk', pwd: 'clerk-secret', roles: ['read'] });
      print(db.getSiblingDB('shop').items.countDocuments());
    `, login)
    assert.equal(out.stdout, '2', out.stderr)
    const wrong = await evalMongosh(db.uri, 'print(1)', ['-u', 'admin', '-p', 'not-it', '--authenticationDatabase', 'admin'])
    assert.notEqual(wrong.code, 0)
    assert.match(wrong.stderr + wrong.stdout, /Authentication failed/)
    const anonymous = await evalMongosh(db.uri, "db.getSiblingDB('shop').items.findOne()")
    assert.notEqual(anonymous.code, 0)
    assert.match(anonymous.stderr + anonymous.stdout, /Command find requires authentication/)
  })

  it('lets a read user read, not write', async () => {
    const clerk = ['-u', 'clerk', '-p', 'clerk-secret', '--authenticationDatabase', 'shop']
    const read = await evalMongosh(`${db.uri}shop`, 'print(db.items.countDocuments())', clerk)
    assert.equal(read.stdout, '2', read.stderr)
    const write = await evalMongosh(`${db.uri}shop`, 'db.items.insertOne({ _id: 3 })', clerk)
    assert.notEqual(write.code, 0)
    assert.match(write.stderr + write.stdout, /not authorized on shop to execute command \{ insert: "items" \}/)
  })

  it('answers db.stats(), stats(), explain(), db.currentOp() and db.serverStatus()', async () => {
    const out = await evalMongosh(`${db.uri}shop`, `
      db.items.createIndex({ price: 1 });
      const stats = db.stats();
      print(stats.db, stats.collections, stats.objects);
      const coll = db.items.stats();
      print(coll.count, coll.nindexes, coll.size > 0, db.items.totalIndexSize() > 0);
      const plan = db.items.find({ price: { $gt: 6 } }).explain('executionStats');
      print(plan.queryPlanner.winningPlan.inputStage.indexName, plan.executionStats.totalDocsExamined, plan.executionStats.nReturned);
      print(db.items.find().explain().queryPlanner.winningPlan.stage);
      print(db.currentOp().inprog.length > 0);
      print(typeof db.serverStatus().opcounters.insert);
    `, ['-u', 'admin', '-p', 'admin-secret', '--authenticationDatabase', 'admin'])
    assert.deepEqual(out.stdout.split('\n'), ['shop 1 2', '2 2 true true', 'price_1 1 1', 'COLLSCAN', 'true', 'number'], out.stderr)
  })

  it('keeps the users in the data directory across a restart', async () => {
    await stopDb(db.child)
    db = await startDb(['--dbpath', dir, '--auth'])
    assert.ok(!db.lines.some((line) => /no user yet/.test(line)))
    const out = await evalMongosh(`${db.uri}shop`, 'print(db.items.countDocuments())', ['-u', 'clerk', '-p', 'clerk-secret', '--authenticationDatabase', 'shop'])
    assert.equal(out.stdout, '2', out.stderr)
  })
})

describe('fastify-mongo-crud-db --tlsMode requireTLS', () => {
  let dir: string
  let files: { keyFile: string, caFile: string }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-tls-cli-'))
    files = await selfSignedCertificate(dir)
  })

  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('serves mongosh over TLS (its URI says tls=true), and refuses a plain mongosh', async () => {
    const db = await startDb(['--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', files.keyFile])
    try {
      assert.match(db.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/\?tls=true$/)
      assert.match(db.lines[1]!, /data in memory, TLS required\. Ctrl-C stops\./)
      const out = await evalMongosh(db.uri, "db.t.insertOne({ _id: 1 }); print(db.t.countDocuments())", ['--tlsCAFile', files.caFile])
      assert.equal(out.stdout, '1', out.stderr)
      const plain = await evalMongosh(db.uri.replace('?tls=true', '?serverSelectionTimeoutMS=1500'), 'print(1)')
      assert.notEqual(plain.code, 0)
    } finally {
      await stopDb(db.child)
    }
  })

  it('says, with --auth and no user yet, how to create the first over TLS', async () => {
    const db = await startDb(['--auth', '--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', files.keyFile], 3)
    try {
      assert.match(db.lines[1]!, /data in memory, clients log in \(--auth\), TLS required\. Ctrl-C stops\./)
      assert.match(db.lines[2]!, /no user yet: .* mongosh "mongodb:\/\/127\.0\.0\.1:\d+\/\?tls=true" --tlsCAFile <certificate of its authority> --eval/)
    } finally {
      await stopDb(db.child)
    }
  })

  it('takes an encrypted key with --tlsCertificateKeyFilePassword, and exits 1 without the right one', async () => {
    const encrypted = await selfSignedCertificate(dir, 'key-password')
    const db = await startDb(['--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', encrypted.keyFile, '--tlsCertificateKeyFilePassword', 'key-password'])
    try {
      const out = await evalMongosh(db.uri, 'print(db.runCommand({ ping: 1 }).ok)', ['--tlsCAFile', encrypted.caFile])
      assert.equal(out.stdout, '1', out.stderr)
    } finally {
      await stopDb(db.child)
    }
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', encrypted.keyFile, '--tlsCertificateKeyFilePassword', 'wrong'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const [code] = await once(child, 'exit')
    assert.equal(code, 1)
    assert.match(stderr, /encrypted\.pem does not hold a usable certificate and private key/)
  })

  it('exits 1 naming a key file it cannot use', async () => {
    const bad = join(dir, 'not-a-key.pem')
    await writeFile(bad, 'not a certificate\n')
    for (const [file, message] of [[join(dir, 'missing.pem'), /cannot read --tlsCertificateKeyFile .*missing\.pem/], [bad, /--tlsCertificateKeyFile .*not-a-key\.pem does not hold a usable certificate and private key/]] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const [code] = await once(child, 'exit')
      assert.equal(code, 1)
      assert.match(stderr, message)
    }
  })
})
