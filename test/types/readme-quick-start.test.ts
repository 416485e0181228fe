/**
 * The README's quick start compiles with `tsc --strict` in a fresh project that sees only the BUILT
 * packages (dist/ declarations, as npm users get them), and a misuse the type tests refuse is refused there
 * too. Run after `npm run build` (`npm test` builds first).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const MARKER = '<!-- quick-start:'

/** The first ```ts block after the quick-start marker of README.md. */
async function quickStart(): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8')
  const at = readme.indexOf(MARKER)
  assert.notEqual(at, -1, `README.md has no ${MARKER} marker`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))
  assert.ok(block?.[1], 'no ```ts block after the quick-start marker')
  return block[1]
}

/** A fresh ESM project whose node_modules resolve the four packages to what `npm run build` made. */
async function freshProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-quick-start-'))
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'quick-start', private: true, type: 'module' }))
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true },
      include: ['*.ts'],
    })
  )
  const links: Record<string, string> = {
    'fastify-mongo-crud': join(root, 'packages/fastify-mongo-crud'),
    '@fastify-mongo-crud/embedded': join(root, 'packages/embedded'),
    fastify: join(root, 'node_modules/fastify'),
    mongodb: join(root, 'node_modules/mongodb'),
  }
  await mkdir(join(dir, 'node_modules/@fastify-mongo-crud'), { recursive: true })
  for (const [name, target] of Object.entries(links)) await symlink(target, join(dir, 'node_modules', name), 'dir')
  return dir
}

/** Runs the project's TypeScript compiler once over every file of `dir`; resolves with its exit code and output. */
function tsc(dir: string): Promise<{ status: number, output: string }> {
  return new Promise((done) => {
    const compiler = join(root, 'node_modules/typescript/bin/tsc')
    execFile(process.execPath, [compiler, '-p', dir, '--pretty', 'false'], { cwd: dir }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      done({ status, output: `${stdout}${stderr}` })
    })
  })
}

/** Error lines of one file in tsc's output. */
const errorsOf = (output: string, file: string) => output.split('\n').filter((line) => line.startsWith(`${file}(`))

describe('README quick start under tsc --strict', { timeout: 60_000 }, () => {
  let dir = ''
  let result = { status: 0, output: '' }
  before(async () => {
    for (const built of ['packages/fastify-mongo-crud/dist/index.d.ts', 'packages/embedded/dist/index.d.ts']) {
      assert.ok(existsSync(join(root, built)), `${built} is missing: run npm run build first`)
    }
    dir = await freshProject()
    const code = await quickStart()
    // One misuse from the type tests, in a file of its own; one compiler run checks both (it takes seconds).
    const misuse = code.replace('model: User,', 'model: UserOut,')
    assert.notEqual(misuse, code, 'the quick start no longer passes `model: User,`')
    await writeFile(join(dir, 'quick-start.ts'), code)
    await writeFile(join(dir, 'misuse.ts'), misuse)
    result = await tsc(dir)
  })
  after(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  it('compiles in a fresh project against the built packages', () => {
    assert.deepEqual(errorsOf(result.output, 'quick-start.ts'), [], result.output)
  })

  it('refuses an output model passed as model (TS2769), as the type tests do', () => {
    assert.notEqual(result.status, 0, 'tsc accepted an output model as model')
    const errors = errorsOf(result.output, 'misuse.ts')
    assert.equal(errors.length, 1, result.output)
    assert.match(errors[0] ?? '', /^misuse\.ts\(\d+,\d+\): error TS2769: No overload matches this call/)
    assert.match(result.output, /Type '"out"' is not assignable to type '"in"'/)
  })
})
