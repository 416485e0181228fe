/**
 * The README's shell lines, run as a user types them: each line read from README.md (so that a change of the
 * README changes the tests), run by `sh` in a process group of its own, in the environment of a user's shell.
 * test/packaging/readme-commands.test.ts and readme-quick-start-run.test.ts use it.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const readme = await readFile(join(root, 'README.md'), 'utf8')

/** The lines of the README's ```sh blocks, comments and all, as a user copies them. */
export function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.split('\n').filter((line) => line.trim() !== ''))
}

/** The README line that starts with `start`: the test runs what the README says, not a copy of it. */
export function line(start: string, markdown = readme): string {
  const found = shellLines(markdown).find((l) => l.startsWith(start))
  assert.ok(found, `README.md has no command line starting with ${JSON.stringify(start)}`)
  return found
}

/** The environment of a user's shell: none of what `npm test` and this runner set for the suite. */
export function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE_OPTIONS$|MONGODB_URI$|FMC_DATA_DIR$|PORT$|HOST$)/i.test(k)))
  return { ...env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', ...extra }
}

export interface Shell {
  command: string
  child: ChildProcess
  /** What it wrote so far, stdout and stderr interleaved. */
  output: () => string
  /** Its exit code once every process of its group let go of the output (0 when stopped by SIGTERM). */
  exited: Promise<number | null>
  /** SIGTERM to the whole group; resolves as `exited` does. */
  stop: () => Promise<number | null>
}

/** Runs `command` in a shell of its own process group in `cwd`, without waiting for anything. */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): Shell {
  const child = spawn('sh', ['-c', command], { cwd, env: userEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  // 'close' comes once every process of the group has let go of the output pipes: the server included, not
  // only `sh`. The group gets SIGTERM at once, and `sh` ends of the signal: that counts as a clean stop.
  let closed = false
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code, signal) => {
      closed = true
      resolve(signal === 'SIGTERM' ? 0 : code)
    }),
  )
  return {
    command,
    child,
    output: () => output,
    exited,
    async stop() {
      // The whole group: `sh`, npm or npx and the node process they started, until the last let go of the output.
      if (!closed) {
        try {
          process.kill(-child.pid!, 'SIGTERM')
        } catch {
          // The group ended between the check and the signal.
        }
      }
      return exited
    },
  }
}

export interface Running extends Shell {
  found: RegExpExecArray
}

/** Runs `command` in a shell of its own process group in `cwd`, until its output matches `ready`. */
export async function start(command: string, cwd: string, ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const shell = spawnShell(command, cwd, env)
  const found = await new Promise<RegExpExecArray>((resolve, reject) => {
    const look = () => {
      const match = ready.exec(shell.output())
      if (match) resolve(match)
    }
    shell.child.stdout!.on('data', look)
    shell.child.stderr!.on('data', look)
    void shell.exited.then((code) => reject(new Error(`\`${command}\` exited with ${code} before ${ready}:\n${shell.output()}`)))
  })
  return { ...shell, found }
}

/** Runs `command` to its end; its exit code and output. */
export function run(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync('sh', ['-c', command], { cwd, env: userEnv(env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) }
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string }
    return { code: failed.status, output: failed.stdout + failed.stderr }
  }
}
