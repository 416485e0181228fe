import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { parseCli, UsageError } from '../../src/cli/parse-args.ts'
import { openEmbedded } from '../../src/index.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const main = join(root, 'src/cli/main.ts')

/** The CLI as users run it, with its output read line by line. */
function start(args: string[]): { child: ChildProcessWithoutNullStreams, lines: AsyncIterator<string>, stdout: Interface } {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] })
  const stdout = createInterface({ input: child.stdout })
  return { child, lines: stdout[Symbol.asyncIterator](), stdout }
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const { value, done } = await lines.next()
  if (done) throw new Error('the CLI closed its output')
  return value
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  const exited = once(child, 'exit')
  child.kill('SIGINT')
  const [code] = await exited
  return code as number | null
}

describe('--bind_ip, --auth and --noauth-on-network (and the old --host, --allow-remote)', () => {
  it('takes loopback addresses without --auth: 127.0.0.0/8, ::1 in any spelling, localhost', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) {
      const command = parseCli(['--bind_ip', host])
      assert.ok(command.command === 'db' && !command.remote && command.host === host, host)
      const old = parseCli(['--host', host])
      assert.ok(old.command === 'db' && !old.remote, host)
    }
  })

  it('refuses any other address without --auth unless --noauth-on-network says so, naming the flag given', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', '::ffff:10.0.0.1', 'example.com', '128.0.0.1']) {
      for (const flag of ['--bind_ip', '--host']) {
        assert.throws(() => parseCli([flag, host]), (error: unknown) => {
          assert.ok(error instanceof UsageError)
          assert.match(error.message, new RegExp(`^${flag} ${host.replaceAll('.', '\\.')} is not a loopback address .* and --auth is off: anyone who reaches it could read and change every database\\. Add --auth .* or pass --noauth-on-network`))
          return true
        })
      }
      for (const flags of [['--auth'], ['--noauth-on-network'], ['--allow-remote']]) {
        const command = parseCli(['--bind_ip', host, ...flags])
        assert.ok(command.command === 'db' && command.remote, host)
      }
    }
  })

  it('takes mongod\'s --dbpath for --path, one address per --bind_ip, and refuses two different values of one option', () => {
    const command = parseCli(['--dbpath', './data', '--bind_ip', '127.0.0.1', '--auth'])
    assert.ok(command.command === 'db')
    assert.deepEqual([command.path, command.host, command.auth, command.tls], ['./data', '127.0.0.1', true, undefined])
    assert.equal((parseCli(['--path', './old']) as { path: string }).path, './old')
    assert.equal((parseCli(['--path', './same', '--dbpath', './same']) as { path: string }).path, './same')
    assert.throws(() => parseCli(['--path', './a', '--dbpath', './b']), /--dbpath and --path are the same option: give one/)
    assert.throws(() => parseCli(['--bind_ip', '127.0.0.1', '--host', '::1']), /--bind_ip and --host are the same option/)
    assert.throws(() => parseCli(['--bind_ip', '127.0.0.1,10.0.0.1']), /--bind_ip takes one address/)
    assert.throws(() => parseCli(['--dbpath', '']), /--dbpath must not be empty/)
  })

  it('takes --tlsMode requireTLS with its key file, refuses the modes it does not serve and a key file alone', () => {
    const command = parseCli(['--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', 'server.pem', '--tlsCertificateKeyFilePassword', 'pw'])
    assert.deepEqual((command as { tls: unknown }).tls, { certificateKeyFile: 'server.pem', password: 'pw' })
    assert.equal((parseCli(['--tlsMode', 'disabled']) as { tls: unknown }).tls, undefined)
    assert.throws(() => parseCli(['--tlsMode', 'requireTLS']), /--tlsMode requireTLS needs --tlsCertificateKeyFile/)
    assert.throws(() => parseCli(['--tlsMode', 'preferTLS', '--tlsCertificateKeyFile', 'server.pem']), /--tlsMode must be requireTLS or disabled, got "preferTLS"/)
    assert.throws(() => parseCli(['--tlsCertificateKeyFile', 'server.pem']), /--tlsCertificateKeyFile goes with --tlsMode requireTLS/)
    // No client certificates: mongod's --tlsCAFile is not an option here.
    assert.throws(() => parseCli(['--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', 'server.pem', '--tlsCAFile', 'ca.pem']), /Unknown option '--tlsCAFile'/)
  })

  it('checks the limit flags', () => {
    assert.deepEqual(parseCli(['--max-connections', '10', '--max-buffered-bytes', '50000000', '--partial-message-timeout-ms', '0']), {
      command: 'db',
      host: '127.0.0.1',
      port: 27017,
      path: undefined,
      remote: false,
      auth: false,
      tls: undefined,
      replSet: undefined,
      replSetHost: undefined,
      limits: { maxConnections: 10, maxBufferedBytes: 50_000_000, partialMessageTimeoutMS: 0 },
    })
    assert.throws(() => parseCli(['--max-connections', '0']), /--max-connections must be an integer of at least 1, got "0"/)
    assert.throws(() => parseCli(['--max-buffered-bytes', 'lots']), /--max-buffered-bytes must be an integer of at least 1024, got "lots"/)
    assert.throws(() => parseCli(['--partial-message-timeout-ms=-5']), /--partial-message-timeout-ms must be an integer of at least 0/)
  })
})

describe('fastify-mongo-crud-db on the command line', { timeout: 60_000 }, () => {
  it('exits 2 on an address other than loopback without --auth, saying why', async () => {
    const { child } = start(['--host', '0.0.0.0', '--port', '0'])
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const [code] = await once(child, 'exit')
    assert.equal(code, 2)
    assert.match(stderr, /--host 0\.0\.0\.0 is not a loopback address \(127\.0\.0\.0\/8, ::1, localhost\) and --auth is off/)
    assert.match(stderr, /pass --noauth-on-network to listen there without authentication/)
  })

  it('listens on another address with --noauth-on-network (or --allow-remote), and prints that there is no authentication', async () => {
    for (const flag of ['--noauth-on-network', '--allow-remote']) {
      const { child, lines } = start(['--bind_ip', '0.0.0.0', flag, '--port', '0'])
      assert.match(await nextLine(lines), /^mongodb:\/\/0\.0\.0\.0:\d+\/$/)
      assert.match(await nextLine(lines), /listening on 0\.0\.0\.0:\d+/)
      assert.match(await nextLine(lines), /WARNING: no authentication, and 0\.0\.0\.0 is not loopback \(--noauth-on-network\): anyone who reaches port \d+ can read and change every database/)
      assert.equal(await stop(child), 0)
    }
  })

  it('listens on another address with --auth, warning that without TLS the documents cross the network in clear, and how to make the first user', async () => {
    const { child, lines } = start(['--bind_ip', '0.0.0.0', '--auth', '--port', '0'])
    assert.match(await nextLine(lines), /^mongodb:\/\/0\.0\.0\.0:\d+\/$/)
    assert.match(await nextLine(lines), /listening on 0\.0\.0\.0:\d+, data in memory, clients log in \(--auth\)\. Ctrl-C stops\./)
    assert.match(await nextLine(lines), /WARNING: no TLS, and 0\.0\.0\.0 is not loopback: passwords never cross the network \(SCRAM\), but documents do, readable by anyone on the way\. Add --tlsMode requireTLS\./)
    assert.match(await nextLine(lines), /no user yet: create the first from this machine \(the localhost exception\), e\.g\. mongosh "mongodb:\/\/0\.0\.0\.0:\d+\/" --eval "db\.getSiblingDB\('admin'\)\.createUser\(/)
    assert.equal(await stop(child), 0)
  })

  it('keeps data in a --path directory whose name has a dot, across restarts', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'fmc-cli-'))
    const path = join(parent, 'tmp.ab12')
    try {
      const { child, lines } = start(['--port', '0', '--path', path])
      const uri = await nextLine(lines)
      assert.match(await nextLine(lines), /data in .*tmp\.ab12/)
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 30_000 })
      try {
        await client.db('test').collection<{ _id: number }>('kept').insertOne({ _id: 1 })
      } finally {
        await client.close()
      }
      assert.equal(await stop(child), 0)
      assert.ok((await stat(path)).isDirectory(), 'tmp.ab12 is a directory')
      assert.ok((await readdir(path)).length > 0, 'the data lives inside tmp.ab12')
      // The CLI has exited: the directory opens again, here, with the data.
      const engine = await openEmbedded({ path })
      try {
        assert.deepEqual(await engine.db('test').collection('kept').find({}).toArray(), [{ _id: 1 }])
      } finally {
        await engine.close()
      }
    } finally {
      await rm(parent, { recursive: true, force: true })
    }
  })

  it('closes a connection past --max-connections and logs it', async () => {
    const { child, lines } = start(['--port', '0', '--max-connections', '1'])
    const uri = new URL(await nextLine(lines))
    await nextLine(lines)
    const held = connect(Number(uri.port), '127.0.0.1')
    await once(held, 'connect')
    // The server logs only what its limits do: the first line after the start is the refusal.
    const refused = connect(Number(uri.port), '127.0.0.1')
    refused.on('error', () => undefined)
    await once(refused, 'close')
    assert.match(await nextLine(lines), /fastify-mongo-crud-db: refused a connection from 127\.0\.0\.1:\d+: 1 open, maxConnections is 1/)
    held.destroy()
    assert.equal(await stop(child), 0)
  })
})
