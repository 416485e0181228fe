import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * A 500 is never silent: an app made by `createApp()` with its defaults logs every 5xx with its stack (on
 * stdout, Fastify's default destination, at level "warn" and above), and stays quiet about 4xx answers.
 * The app runs in a child process so that its real stdout, written by the logger, can be read as is.
 */
const here = dirname(fileURLToPath(import.meta.url))
const fixture = join(here, 'fixtures', 'default-logger-app.ts')

interface Run {
  statuses: number[]
  lines: Array<Record<string, unknown>>
}

function run(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], { cwd: join(here, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`fixture exited with ${code}: ${stderr}`))
      const lines = stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
      resolve({ statuses: JSON.parse(stderr.trim().split('\n').at(-1) ?? '[]') as number[], lines })
    })
  })
}

describe('logging with createApp defaults', { timeout: 60_000 }, () => {
  it('logs a 500 with its stack, and nothing for a 422 or a 404', async () => {
    const { statuses, lines } = await run()
    assert.deepEqual(statuses, [500, 422, 404])
    assert.equal(lines.length, 1, JSON.stringify(lines))
    const [line] = lines as [Record<string, unknown> & { err?: { stack?: string } }]
    assert.equal(line['level'], 50)
    assert.match(String(line.err?.stack), /^Error: kaboom from a dependency\n\s+at /)
  })

  it('logs nothing with `logger: false`', async () => {
    const { statuses, lines } = await run('silent')
    assert.deepEqual(statuses, [500, 422, 404])
    assert.deepEqual(lines, [])
  })
})
