// What `npm install fastify-mongo-crud` brings: the packed tarballs (`npm pack --dry-run`, which runs
// `prepack` but not the build: run `npm run build` first) and the router's installed dependency tree as
// the lock file resolves it. The installed sizes are measured by scripts/install-size.mjs (too slow here).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const PACKAGES = ['packages/fastify-mongo-crud', 'packages/embedded', 'packages/linear-regex']
/** What the router must not bring: the engine's native and query dependencies, ReDoc and its React, the admin page's bundler. */
const HEAVY = ['redoc', 'react', 'react-dom', 'lmdb', 'mingo', 'styled-components', '@fastify-mongo-crud/embedded', 'esbuild']
/** What the admin page (docs/admin.md) may add to the installed package, its assets and its server code together. */
const ADMIN_BUDGET_BYTES = 300_000

interface LockEntry {
  link?: boolean
  hasInstallScript?: boolean
  os?: string[]
  cpu?: string[]
  resolved?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}
interface PackageJson {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

const tarballs = new Map<string, Array<{ path: string, size: number }>>()
/** The paths inside the package's tarball, from `npm pack --dry-run --json`. */
function tarballFiles(dir: string): string[] {
  return tarballEntries(dir).map((f) => f.path)
}
/** The files inside the package's tarball, with their sizes. */
function tarballEntries(dir: string): Array<{ path: string, size: number }> {
  let files = tarballs.get(dir)
  if (!files) {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts=false'], {
      cwd: join(root, dir),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    files = (JSON.parse(out) as [{ files: { path: string, size: number }[] }])[0].files
    tarballs.set(dir, files)
  }
  return files
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(join(root, path), 'utf8')) as T
}

/** The relative link targets of a Markdown file (no URLs, no in-page anchors), without their #fragment. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!)
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => posix.normalize(decodeURIComponent(t.split('#')[0]!)))
}

/**
 * The production dependency closure of a workspace package, as installed from the lock file: each
 * dependency resolved the way Node resolves it (nearest node_modules first), workspace links followed.
 * Peer dependencies are the user's own (fastify, mongodb) and are not followed.
 */
function installedClosure(workspaceDir: string): Map<string, LockEntry> {
  const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json').packages
  const names = new Map<string, LockEntry>()
  const seen = new Set<string>()
  const visit = (location: string) => {
    if (seen.has(location)) return
    seen.add(location)
    const entry = lock[location]
    assert.ok(entry, `package-lock.json has no entry for ${location}`)
    if (entry.link) return visit(entry.resolved!)
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      let from = location
      let found: string | undefined
      for (;;) {
        const candidate = `${from ? `${from}/` : ''}node_modules/${name}`
        if (lock[candidate]) {
          found = candidate
          break
        }
        if (!from) break
        const at = from.lastIndexOf('/node_modules/')
        from = at === -1 ? '' : from.slice(0, at)
      }
      // An optional dependency for another platform may be absent from the tree; a required one may not.
      if (found) {
        names.set(name, lock[found]!)
        visit(found)
      } else assert.ok(entry.optionalDependencies?.[name], `${location} needs ${name}, which the lock file lacks`)
    }
  }
  visit(workspaceDir)
  return names
}

describe('the router package (fastify-mongo-crud), as npm packs it', () => {
  const dir = 'packages/fastify-mongo-crud'
  const manifest = readJson<PackageJson>(`${dir}/package.json`)

  it('declares no dependency on the engine, ReDoc or React, and fastify and mongodb only as peers', () => {
    const declared = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })
    for (const name of HEAVY) assert.ok(!declared.includes(name), `${name} is a dependency of the router`)
    assert.ok(!declared.includes('fastify') && !declared.includes('mongodb'), declared.join(', '))
    assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}).sort(), ['fastify', 'mongodb'])
  })

  it('installs none of them through its dependencies either, and no native module', () => {
    const closure = installedClosure(dir)
    assert.ok(closure.has('@fastify/swagger-ui'), 'the walk of the lock file found the dependencies')
    for (const name of HEAVY) assert.ok(!closure.has(name), `${name} is installed with the router`)
    // A native module builds at install (an install script) or comes as per-platform packages (os, cpu).
    for (const [name, entry] of closure) {
      assert.ok(!entry.hasInstallScript && !entry.os && !entry.cpu, `${name} is a native or per-platform package`)
    }
  })

  it('carries the ReDoc bundle it serves, its licence, README.md, CHANGELOG.md and LICENSE', () => {
    const files = tarballFiles(dir)
    for (const file of ['assets/redoc.standalone.js', 'assets/redoc.LICENSE', 'README.md', 'CHANGELOG.md', 'LICENSE']) {
      assert.ok(files.includes(file), `${file} is not in the tarball (built? npm run build): ${files.join(', ')}`)
    }
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), 'dist/ is missing: npm run build')
  })

  it('carries the admin page (assets/admin/, built from admin-ui/, whose sources stay out), within its budget of 300 kB installed', () => {
    const files = tarballEntries(dir)
    const paths = files.map((f) => f.path)
    for (const file of ['assets/admin/admin.js', 'assets/admin/admin.css', 'dist/admin/register-admin.js']) {
      assert.ok(paths.includes(file), `${file} is not in the tarball (built? npm run build)`)
    }
    assert.deepEqual(paths.filter((path) => path.startsWith('admin-ui/')), [])
    const bytes = files.filter((f) => /^(assets|dist|src)\/admin\//.test(f.path)).reduce((sum, f) => sum + f.size, 0)
    assert.ok(bytes <= ADMIN_BUDGET_BYTES, `the admin page adds ${bytes} bytes to the package, over its budget of ${ADMIN_BUDGET_BYTES}`)
  })

  it('carries the `fastify-mongo-crud` command (bin: a committed file with a shebang that runs the built CLI) and the API file schema', () => {
    const files = tarballFiles(dir)
    const bin = readJson<{ bin?: Record<string, string> }>(`${dir}/package.json`).bin?.['fastify-mongo-crud']
    assert.equal(bin, './bin/fastify-mongo-crud.js')
    assert.ok(files.includes('bin/fastify-mongo-crud.js'), 'bin/fastify-mongo-crud.js is not in the tarball')
    assert.ok(files.includes('dist/cli/main.js'), 'dist/cli/main.js is not in the tarball (built? npm run build)')
    assert.match(readFileSync(join(root, dir, 'bin/fastify-mongo-crud.js'), 'utf8'), /^#!\/usr\/bin\/env node\n/)
    assert.ok(files.includes('schema/api-file.schema.json'), 'schema/api-file.schema.json is not in the tarball')
  })
})

describe('every package tarball', () => {
  for (const dir of PACKAGES) {
    it(`${dir}: has LICENSE, every file its README links to, and source maps only with their sources`, () => {
      const files = tarballFiles(dir)
      assert.ok(files.includes('LICENSE'), `${dir}: LICENSE is not in the tarball`)
      if (files.includes('README.md')) {
        for (const target of relativeLinks(readFileSync(join(root, dir, 'README.md'), 'utf8'))) {
          assert.ok(
            files.includes(target) || files.some((f) => f.startsWith(`${target.replace(/\/$/, '')}/`)),
            `${dir}/README.md links to ${target}, which is not in the tarball`,
          )
        }
      }
      const maps = files.filter((f) => f.endsWith('.map'))
      if (maps.length > 0) {
        assert.ok(files.some((f) => f.startsWith('src/')), `${dir}: ships ${maps[0]} without its sources`)
      }
    })
  }
})
