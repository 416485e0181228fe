import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

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
