/**
 * A fresh TypeScript project outside the repository that sees the packages as an npm user does: their
 * BUILT declarations (dist/, `npm run build` first), through node_modules links. The type tests that compile
 * user code with `tsc` (the README's quick start, misspelt options) and bench/type-check-cost.ts use it.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const MARKER = '<!-- quick-start:'

/** What a user's tsconfig says: `tsc --strict` with NodeNext modules; `skipLibCheck` as `tsc --init` writes it. */
export const USER_COMPILER_OPTIONS = { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true }

/** The first ```ts block after the quick-start marker of README.md. */
export async function quickStart(): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8')
  const at = readme.indexOf(MARKER)
  assert.notEqual(at, -1, `README.md has no ${MARKER} marker`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))
  assert.ok(block?.[1], 'no ```ts block after the quick-start marker')
  return block[1]
}

/** Fails with a clear message when the declarations the project resolves to were not built. */
export function requireBuiltPackages(): void {
  for (const built of ['packages/fastify-mongo-crud/dist/index.d.ts', 'packages/embedded/dist/index.d.ts']) {
    assert.ok(existsSync(join(root, built)), `${built} is missing: run npm run build first`)
  }
}

/**
 * A fresh ESM project (its own tsconfig.json over `*.ts`) whose node_modules resolve the packages to what
 * `npm run build` made, and fastify, mongodb and typebox to the workspace's copies.
 */
export async function freshProject(compilerOptions: Record<string, unknown> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-types-'))
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }))
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...USER_COMPILER_OPTIONS, ...compilerOptions }, include: ['*.ts'] }))
  const links: Record<string, string> = {
    'fastify-mongo-crud': join(root, 'packages/fastify-mongo-crud'),
    '@fastify-mongo-crud/embedded': join(root, 'packages/embedded'),
    fastify: join(root, 'node_modules/fastify'),
    mongodb: join(root, 'node_modules/mongodb'),
    typebox: join(root, 'node_modules/typebox'),
  }
  await mkdir(join(dir, 'node_modules/@fastify-mongo-crud'), { recursive: true })
  for (const [name, target] of Object.entries(links)) await symlink(target, join(dir, 'node_modules', name), 'dir')
  return dir
}

/** Runs the workspace's TypeScript compiler once over the project in `dir`; resolves with its exit code and output. */
export function tsc(dir: string, args: readonly string[] = []): Promise<{ status: number, output: string }> {
  return new Promise((done) => {
    const compiler = join(root, 'node_modules/typescript/bin/tsc')
    execFile(process.execPath, [compiler, '-p', dir, '--pretty', 'false', ...args], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      done({ status, output: `${stdout}${stderr}` })
    })
  })
}

/** The errors of one file in tsc's output, each with the indented lines that continue its message. */
export function errorsOf(output: string, file: string): string[] {
  const errors: string[] = []
  let inFile = false
  for (const line of output.split('\n')) {
    if (/^\S/.test(line)) {
      inFile = line.startsWith(`${file}(`)
      if (inFile) errors.push(line)
    } else if (inFile && line !== '') {
      errors[errors.length - 1] += `\n${line}`
    }
  }
  return errors
}
