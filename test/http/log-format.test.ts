import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { createApp, type LogFormat, SetupError } from 'fastify-mongo-crud'
import { logCapture } from '../harness/log-capture.ts'

/**
 * What `createApp()`'s log looks like: human lines (pino-pretty's) when stdout is a terminal, JSON lines
 * otherwise; FMC_LOG_FORMAT, then the `logFormat` option, choose otherwise. The app (fixtures/default-logger-app.ts:
 * one 500, one 422, one 404) runs in a child process whose stdout is a pipe, or a terminal: script(1) runs it
 * on a pseudo-terminal and copies what it writes there.
 */
const here = dirname(fileURLToPath(import.meta.url))
const fixture = join(here, 'fixtures', 'default-logger-app.ts')
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0
/** The escape that starts a terminal's colour codes. */
const ESC = String.fromCharCode(27)

interface Run {
  /** stdout, without the terminal's colours and carriage returns. */
  lines: string[]
  raw: string
}

function run(options: { terminal?: boolean, env?: NodeJS.ProcessEnv, mode?: string } = {}): Promise<Run> {
  const env = { ...process.env, ...options.env }
  if (options.env?.['FMC_LOG_FORMAT'] === undefined) delete env['FMC_LOG_FORMAT']
  const node = [process.execPath, '--import', 'tsx', fixture, ...(options.mode === undefined ? [] : [options.mode])]
  // script -q: no banner; -e: its exit code is the app's; -c: the command, quoted for the shell it runs it with.
  const [command, ...args] = options.terminal ? ['script', '-qec', node.map((word) => `'${word}'`).join(' '), '/dev/null'] : node
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { cwd: join(here, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the app exited with ${code}: ${stdout}${stderr}`))
      // On a terminal the app's last stderr line (the statuses) comes through stdout too.
      const text = stdout.replace(/\r/g, '').replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')
      resolve({ raw: stdout, lines: text.replace('[500,422,404]', '').split('\n').filter((line) => line.trim() !== '') })
    })
  })
}

/** One human line per entry: `[HH:MM:ss.mmm] LEVEL: <request id> <message> {...}`, an error's stack below it. */
function assertPretty({ lines }: Run): void {
  assert.match(lines[0] ?? '', /^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: req-\w+ request failed/, lines.join('\n'))
  assert.ok(lines.some((line) => /^\s+Error: kaboom from a dependency$/.test(line)), lines.join('\n'))
  assert.ok(lines.some((line) => /^\s+at /.test(line)), 'the stack is printed')
  assert.ok(!lines.some((line) => line.startsWith('{')), 'no JSON line')
}

function assertJson({ lines }: Run): void {
  assert.equal(lines.length, 1, lines.join('\n'))
  const line = JSON.parse(lines[0]!) as { level: number, msg: string, err: { message: string } }
  assert.equal(line.level, 50)
  assert.equal(line.msg, 'request failed')
  assert.equal(line.err.message, 'kaboom from a dependency')
}

describe('the log of createApp: human lines on a terminal, JSON lines otherwise', { timeout: 120_000 }, () => {
  it('stdout a pipe (a file, a log collector): JSON lines', async () => {
    assertJson(await run())
  })

  it('stdout a terminal: human lines, with colours', { skip: !hasScript && 'script(1) is not installed' }, async () => {
    const run_ = await run({ terminal: true })
    assertPretty(run_)
    assert.ok(run_.raw.includes(`${ESC}[31mERROR${ESC}[39m`), 'the level is in red')
  })

  it('FMC_LOG_FORMAT=json on a terminal: JSON lines', { skip: !hasScript && 'script(1) is not installed' }, async () => {
    assertJson(await run({ terminal: true, env: { FMC_LOG_FORMAT: 'json' } }))
  })

  it('FMC_LOG_FORMAT=pretty into a pipe: human lines, without colours', async () => {
    const run_ = await run({ env: { FMC_LOG_FORMAT: 'pretty' } })
    assertPretty(run_)
    assert.ok(!run_.raw.includes(ESC), 'no colour')
  })

  it('createApp({ logFormat }) wins over FMC_LOG_FORMAT', async () => {
    assertJson(await run({ env: { FMC_LOG_FORMAT: 'pretty' }, mode: 'json' }))
    assertPretty(await run({ env: { FMC_LOG_FORMAT: 'json' }, mode: 'pretty' }))
  })

  it('leaves a logger with its own destination, or a loggerInstance, as it is: JSON lines', async () => {
    const capture = logCapture()
    const app = await createApp({ logFormat: 'pretty', fastify: { logger: { level: 'warn', stream: capture.stream } } })
    app.log.warn({ detail: 1 }, 'to the stream')
    await app.close()
    const instance = Fastify({ logger: { level: 'warn', stream: capture.stream } }).log
    const other = await createApp({ logFormat: 'pretty', fastify: { loggerInstance: instance } })
    other.log.warn('to the instance')
    await other.close()
    assert.deepEqual(capture.warnings().map((line) => (line as { msg: string }).msg), ['to the stream', 'to the instance'])
  })

  it('refuses a format that is neither (SetupError FMC_ERR_OPTIONS_INVALID)', async () => {
    await assert.rejects(createApp({ logFormat: 'loud' as LogFormat }), (error: unknown) => {
      return error instanceof SetupError && error.code === 'FMC_ERR_OPTIONS_INVALID' && error.message === `logFormat must be 'pretty' or 'json', got "loud"`
    })
    const before = process.env['FMC_LOG_FORMAT']
    process.env['FMC_LOG_FORMAT'] = 'yaml'
    try {
      await assert.rejects(createApp(), { name: 'SetupError', message: `FMC_LOG_FORMAT must be 'pretty' or 'json', got "yaml"` })
    } finally {
      if (before === undefined) delete process.env['FMC_LOG_FORMAT']
      else process.env['FMC_LOG_FORMAT'] = before
    }
  })
})
