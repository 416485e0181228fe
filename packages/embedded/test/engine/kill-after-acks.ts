import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/**
 * Runs the writer `fixtures/<fixture>` on the data directory `dir` until it has printed `acked <n>` for
 * `acks` writes, then kill -9s it: the numbers it acknowledged. Used by the tests that an acknowledged write
 * survives a kill (durability, transaction-durability, change-streams).
 */
export function runAndKill(fixture: string, dir: string, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(here, 'fixtures', fixture), dir], { cwd: join(here, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
    const acked: number[] = []
    let buffered = ''
    let stderr = ''
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    proc.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        const match = /^acked (\d+)$/.exec(line)
        if (match) acked.push(Number(match[1]))
      }
      if (acked.length >= acks && proc.exitCode === null) proc.kill('SIGKILL')
    })
    proc.on('error', reject)
    proc.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${String(signal)}): ${stderr}`))
      else resolve(acked)
    })
  })
}
