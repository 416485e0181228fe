import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * `npm start`'s server (examples/server.ts) says where its docs and its data are, and logs every request at
 * level "info" on stdout (JSON lines: stdout is a pipe here). It runs in a child process, on a free port,
 * with its data directory in a temporary folder.
 */
const here = dirname(fileURLToPath(import.meta.url))
const server = join(here, '..', '..', 'examples', 'server.ts')

describe('the demo server logs requests', { timeout: 60_000 }, () => {
  let child: ChildProcess
  let dir: string
  let origin: string
  const lines: Array<Record<string, unknown>> = []
  let stdout = ''
  let waiting: (() => void) | undefined

  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'fmc-demo-')))
    child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), server], {
      cwd: dir,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let buffered = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      stdout += chunk.toString()
      const complete = buffered.split('\n')
      buffered = complete.pop() ?? ''
      for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>)
      waiting?.()
    })
    origin = String((await nextLine((line) => String(line['msg']).startsWith('Server listening at http://127.0.0.1')))['msg']).split(' ').at(-1) ?? ''
  }, { timeout: 30_000 })
  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    await rm(dir, { recursive: true, force: true })
  })

  /** The first log line (already received or to come) that `matches`. */
  async function nextLine(matches: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const found = lines.find(matches)
      if (found !== undefined) return found
      if (child.exitCode !== null) throw new Error(`the demo server exited with ${child.exitCode}`)
      await new Promise<void>((resolve) => {
        waiting = resolve
      })
    }
  }

  it('prints where its docs and its data are, on the port it listens on', { timeout: 30_000 }, async () => {
    while (!/^Docs: .*\n/m.test(stdout)) {
      if (child.exitCode !== null) throw new Error(`the demo server exited with ${child.exitCode}`)
      await new Promise<void>((resolve) => {
        waiting = resolve
      })
    }
    const said = stdout.split('\n').filter((line) => !line.startsWith('{'))
    assert.ok(said.includes(`Demo API on ${origin} (embedded engine, data in ${join(dir, 'data')})`), stdout)
    assert.ok(said.includes(`Docs: ${origin}/docs and ${origin}/redoc. Ctrl-C stops.`), stdout)
  })

  it('logs the request and its completion with the status', { timeout: 30_000 }, async () => {
    const res = await fetch(`${origin}/api/v1/users?limit=5`)
    assert.equal(res.status, 200)
    const incoming = await nextLine((line) => line['msg'] === 'incoming request')
    assert.equal((incoming['req'] as { url?: string }).url, '/api/v1/users?limit=5')
    const completed = await nextLine((line) => line['msg'] === 'request completed' && line['reqId'] === incoming['reqId'])
    assert.equal((completed['res'] as { statusCode?: number }).statusCode, 200)
  })
})
