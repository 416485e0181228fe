// The packages' declarations compile in a user's project with `skipLibCheck: false` (tsc's default: every
// .d.ts of node_modules is checked too). Before, `node_modules/lmdb/index.d.ts(505,1): error TS1203: Export
// assignment cannot be used when targeting ECMAScript modules` failed every project that imported the engine:
// its declarations imported lmdb's types. The project is what npm installs: the three packages as `npm pack`
// packs them (dist/ as `npm run build` made it: run it first), unpacked into node_modules, beside links to
// the workspace's copies of their dependencies and peers, and the user's @types/node. Its tsconfig.json is
// what `tsc --init` writes, with `skipLibCheck: false`; then the same with `module: nodenext` and the lines
// `tsc --init` suggests for Node (`lib: ["esnext"]`, `types: ["node"]`). Each compiles the README's quick
// start and a file that imports every entry point of every package (their `exports`): what a user's program
// can reach. (The engine's internal modules that no entry point reaches import mingo's declarations, which fail
// under tsc --init's `exactOptionalPropertyTypes`; a declaration of ours that reached them would fail here.)
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { quickStart, requireBuiltPackages, root } from '../harness/fresh-project.ts'

const PACKAGES = ['packages/linear-regex', 'packages/fastify-mongo-crud', 'packages/embedded']
/** What the user installs beside the packages, as the README's install line and a Node project do. */
const USER_DEV_DEPENDENCIES = ['@types/node']

interface Manifest {
  name: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  exports?: Record<string, unknown>
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T
const manifests = PACKAGES.map((dir) => ({ dir, manifest: readJson<Manifest>(join(root, dir, 'package.json')) }))
const ours = new Set(manifests.map(({ manifest }) => manifest.name))

/** Every .d.ts under `dir`, as paths relative to it. */
function declarationsIn(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) return declarationsIn(dir, path)
    return entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The bare specifiers (`lmdb`, `mingo/types`, `node:net`) a declaration file imports or re-exports. */
function bareImports(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|<reference\s+types=)['"]([^'"]+)['"]/gm)].map((m) => m[1]!)
  return specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('/'))
}

/** `@scope/name/sub` -> `@scope/name`, `mingo/types` -> `mingo`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

/** Where Node finds the workspace's copy of `name` from the package in `dir`: its own node_modules first. */
function workspaceCopy(dir: string, name: string): string {
  for (const candidate of [join(root, dir, 'node_modules', name), join(root, 'node_modules', name)]) if (existsSync(candidate)) return candidate
  assert.fail(`${dir} needs ${name}, which the workspace has not installed`)
}

/** An empty project whose node_modules holds the packed packages and links to the rest. */
async function installedProject(): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'fmc-lib-check-'))
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'lib-check', private: true, type: 'module' }))
  const packs = join(project, 'packs')
  await mkdir(packs)
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', packs, ...PACKAGES.flatMap((dir) => ['-w', dir])], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { name: string, filename: string }[]
  const links = new Map<string, string>()
  for (const { dir, manifest } of manifests) {
    const tarball = packed.find((p) => p.name === manifest.name)
    assert.ok(tarball, `npm pack did not pack ${manifest.name}`)
    const target = join(project, 'node_modules', manifest.name)
    await mkdir(target, { recursive: true })
    execFileSync('tar', ['-xzf', join(packs, tarball.filename), '-C', target, '--strip-components=1'])
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (ours.has(name)) continue
      const copy = workspaceCopy(dir, name)
      // A copy of the package's own (another version than the root's) goes into its own node_modules.
      const at = copy.startsWith(join(root, dir)) ? join(target, 'node_modules', name) : join(project, 'node_modules', name)
      links.set(at, copy)
    }
  }
  for (const name of USER_DEV_DEPENDENCIES) links.set(join(project, 'node_modules', name), join(root, 'node_modules', name))
  for (const [at, copy] of links) {
    await mkdir(dirname(at), { recursive: true })
    await symlink(copy, at, 'dir')
  }
  await rm(packs, { recursive: true })
  return project
}

/** `import * as` each entry point of each package that has declarations (its `types` condition). */
function entryPointsFile(): string {
  const lines: string[] = []
  for (const { manifest } of manifests) {
    for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
      if (typeof conditions !== 'object' || conditions === null || !('types' in conditions)) continue
      lines.push(`import * as entry${lines.length} from '${manifest.name}${subpath.slice(1)}'`)
    }
  }
  lines.push(`export const entryPoints = [${lines.map((_, i) => `entry${i}`).join(', ')}]`)
  return `${lines.join('\n')}\n`
}

function tsc(project: string, tsconfig: string): Promise<{ status: number, output: string }> {
  return new Promise((done) => {
    const compiler = join(root, 'node_modules/typescript/bin/tsc')
    execFile(process.execPath, [compiler, '-p', join(project, tsconfig), '--pretty', 'false'], { cwd: project, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: `${stdout}${stderr}` })
    })
  })
}

describe("the packed packages' declarations under skipLibCheck: false", { timeout: 480_000 }, () => {
  let project = ''
  const results = new Map<string, { status: number, output: string }>()
  /** What each tsconfig adds to what `tsc --init` wrote (kept as tsconfig.init.json, comments and all). */
  const CONFIGS: Record<string, Record<string, unknown>> = {
    'tsconfig.json': { skipLibCheck: false, noEmit: true },
    'tsconfig.node.json': { skipLibCheck: false, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', lib: ['esnext'], types: ['node'] },
  }

  before(async () => {
    requireBuiltPackages()
    project = await installedProject()
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--init'], { cwd: project, stdio: 'ignore' })
    await rename(join(project, 'tsconfig.json'), join(project, 'tsconfig.init.json'))
    await writeFile(join(project, 'quick-start.ts'), await quickStart())
    await writeFile(join(project, 'entry-points.ts'), entryPointsFile())
    const files = ['quick-start.ts', 'entry-points.ts']
    for (const [name, compilerOptions] of Object.entries(CONFIGS)) {
      await writeFile(join(project, name), JSON.stringify({ extends: './tsconfig.init.json', compilerOptions, files }))
    }
    // The two compiler runs take most of this test's time (lib check of typebox mostly): side by side.
    const runs = await Promise.all(Object.keys(CONFIGS).map((name) => tsc(project, name)))
    for (const [i, name] of Object.keys(CONFIGS).entries()) results.set(name, runs[i]!)
  })
  after(async () => {
    if (project !== '') await rm(project, { recursive: true, force: true })
  })

  it("starts from tsc --init's tsconfig.json, which skips the lib check (skipLibCheck: true)", async () => {
    assert.ok((await readdir(project)).includes('tsconfig.init.json'))
    assert.match(readFileSync(join(project, 'tsconfig.init.json'), 'utf8'), /"skipLibCheck": true/)
  })

  it("compiles with tsc --init's options", () => {
    const { status, output } = results.get('tsconfig.json')!
    assert.equal(status, 0, output)
  })

  it("compiles with module: nodenext and tsc --init's lines for Node (lib esnext, types node)", () => {
    const { status, output } = results.get('tsconfig.node.json')!
    assert.equal(status, 0, output)
  })

  it('every package declaration imports only its own dependencies and peers (and node: modules), never lmdb', () => {
    for (const { dir, manifest } of manifests) {
      const allowed = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }))
      for (const file of declarationsIn(join(root, dir, 'dist'))) {
        for (const specifier of bareImports(readFileSync(join(root, dir, 'dist', file), 'utf8'))) {
          const name = packageOf(specifier)
          assert.ok(specifier.startsWith('node:') || allowed.has(name), `${dir}/dist/${file} imports ${specifier}, not a dependency of ${manifest.name}`)
          // lmdb's index.d.ts has `export =` in an ES module package: TS1203 under skipLibCheck: false.
          assert.notEqual(name, 'lmdb', `${dir}/dist/${file} imports lmdb's declarations`)
        }
      }
    }
  })
})
