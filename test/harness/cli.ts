import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The `fastify-mongo-crud` command, run from its sources (the package's bin is dist/cli/main.js, built from them). */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'fastify-mongo-crud', 'src', 'cli', 'main.ts')

export interface RunningCli {
  child: ChildProcess
  /** `http://127.0.0.1:<port>`, from its "listening on" line. */
  origin: string
  stdout: () => string
  /** Stops it with `signal` (SIGTERM); resolves with its exit code once it exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd: string | undefined): ChildProcess {
  const clean = { ...process.env }
  for (const name of ['MONGODB_URI', 'FMC_DATA_DIR', 'FMC_SECRET', 'FMC_LOG_FORMAT', 'PORT', 'HOST']) delete clean[name]
  return spawn(process.execPath, ['--conditions=fmc-source', '--import', import.meta.resolve('tsx'), CLI, ...args], {
    cwd,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs the command to its end: exit code, stdout and stderr. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawnCli(args, env, cwd)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

/**
 * Starts `serve` (PORT=0 unless `env` says otherwise) and waits for the end of what it says on starting
 * (its "listening on" line, then the docs line, which can arrive in a later chunk).
 */
export async function startCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<RunningCli> {
  const child = spawnCli(args, { PORT: '0', ...env }, cwd)
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const found = /listening on (http:\/\/\S+)/.exec(stdout)
      if (found && stdout.includes('Ctrl-C stops.')) resolve(found[1]!)
    })
    void exited.then((code) => reject(new Error(`the command exited with ${code} before listening:\n${stdout}\n${stderr}`)))
  })
  return {
    child,
    origin,
    stdout: () => stdout,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}
