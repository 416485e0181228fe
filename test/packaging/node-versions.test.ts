// What the packages say about Node and modules is true: each `engines` floor installs the package's
// dependency tree (its peers included, as npm installs them) without an EBADENGINE warning, the
// workspace root's floor covers everything `npm ci` installs, docs/install.md and the router's README give the
// same floors, and they say the packages are ES modules only, as their `exports` are.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import semver from 'semver'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const PACKAGES = ['packages/fastify-mongo-crud', 'packages/embedded', 'packages/linear-regex']

interface LockEntry {
  link?: boolean
  resolved?: string
  engines?: { node?: string }
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}
interface Manifest {
  name: string
  type?: string
  engines?: { node?: string }
  exports?: Record<string, unknown>
}

const readText = (path: string) => readFileSync(join(root, path), 'utf8')
const readJson = <T>(path: string) => JSON.parse(readText(path)) as T
const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json').packages

/** The lowest Node an `engines.node` range admits: the version the package claims to install on. */
function floorOf(manifest: Manifest): string {
  const range = manifest.engines?.node
  assert.ok(range !== undefined, `${manifest.name} declares no engines.node`)
  return semver.minVersion(range)!.version
}

/** `22.0.0` -> `22`, `20.19.0` -> `20.19`: how the READMEs write a floor. */
const spoken = (version: string) => version.replace(/(\.0)?\.0$/, '')

/** Where Node finds `name` from `location` in the lock file's tree: the nearest node_modules up. */
function resolve(location: string, name: string): string | undefined {
  let from = location
  for (;;) {
    const candidate = `${from ? `${from}/` : ''}node_modules/${name}`
    if (lock[candidate]) return candidate
    if (!from) return undefined
    const at = from.lastIndexOf('/node_modules/')
    from = at === -1 ? '' : from.slice(0, at)
  }
}

/** Every package `npm install <workspace package>` brings: dependencies and required peers, transitively. */
function installedWith(location: string): Map<string, LockEntry> {
  const found = new Map<string, LockEntry>()
  const visit = (at: string) => {
    const entry = lock[at]
    if (entry === undefined || found.has(at)) return
    found.set(at, entry)
    if (entry.link) return visit(entry.resolved!)
    const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([name]) => name))
    const names = [...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }), ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name))]
    for (const name of names) {
      const target = resolve(at, name)
      // An optional dependency for another platform may be absent from the tree.
      if (target !== undefined) visit(target)
    }
  }
  visit(location)
  return found
}

/** The packages among `entries` whose own engines refuse `version` (each an EBADENGINE warning). */
function refusing(entries: Iterable<[string, LockEntry]>, version: string): string[] {
  const refused: string[] = []
  for (const [location, entry] of entries) {
    const range = entry.engines?.node
    if (range !== undefined && !semver.satisfies(version, range)) refused.push(`${location.replace(/^.*node_modules\//, '')} (${range})`)
  }
  return refused
}

describe('engines: each floor installs without EBADENGINE warnings', () => {
  for (const dir of PACKAGES) {
    it(`${dir}: its dependencies and peers all accept its floor`, () => {
      const floor = floorOf(readJson<Manifest>(`${dir}/package.json`))
      assert.deepEqual(refusing(installedWith(dir), floor), [], `${dir} claims Node ${floor}`)
    })
  }

  it('the workspace root: everything `npm ci` installs, dev tools included, accepts its floor', () => {
    const floor = floorOf(readJson<Manifest>('package.json'))
    assert.deepEqual(refusing(Object.entries(lock).filter(([location]) => location !== ''), floor), [], `the root claims Node ${floor}`)
  })

  it('the workspace root claims no less than any of its packages', () => {
    const floor = floorOf(readJson<Manifest>('package.json'))
    for (const dir of PACKAGES) {
      const own = floorOf(readJson<Manifest>(`${dir}/package.json`))
      assert.ok(semver.gte(floor, own), `the root's floor ${floor} is below ${dir}'s ${own}`)
    }
  })
})

describe('docs/install.md and the READMEs say what package.json says', () => {
  const install = readText('docs/install.md')

  it('docs/install.md gives each install line its package floor, and the workspace floor', () => {
    const router = spoken(floorOf(readJson<Manifest>('packages/fastify-mongo-crud/package.json')))
    const engine = spoken(floorOf(readJson<Manifest>('packages/embedded/package.json')))
    const workspace = spoken(floorOf(readJson<Manifest>('package.json')))
    assert.match(install, new RegExp(`\`npm install fastify-mongo-crud fastify mongodb\`, on Node ${router.replace('.', '\\.')} or newer`))
    assert.match(install, new RegExp(`\`npm install @fastify-mongo-crud/embedded\`, on Node ${engine.replace('.', '\\.')} or newer`))
    assert.match(install, new RegExp(`workspace[^.]*Node ${workspace.replace('.', '\\.')} or newer`))
    assert.match(readText('README.md'), /\]\(docs\/install\.md\)/, 'the README does not link to docs/install.md')
  })

  it('the router README gives its floor', () => {
    const floor = spoken(floorOf(readJson<Manifest>('packages/fastify-mongo-crud/package.json')))
    assert.match(readText('packages/fastify-mongo-crud/README.md'), new RegExp(`Node\\.js ${floor.replace('.', '\\.')} or newer`))
  })
})

describe('ES modules only', () => {
  for (const dir of PACKAGES) {
    it(`${dir}: is a module package whose exports have no CommonJS entry`, () => {
      const manifest = readJson<Manifest>(`${dir}/package.json`)
      assert.equal(manifest.type, 'module')
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        if (typeof target !== 'object' || target === null) continue
        assert.ok(!('require' in target) && !('default' in target), `${dir} exports ${subpath} to require()`)
      }
    })
  }

  it('the install lines say so beside them', () => {
    const lines: Array<[path: string, install: string]> = [
      ['docs/install.md', '`npm install fastify-mongo-crud fastify mongodb`'],
      ['docs/install.md', '`npm install @fastify-mongo-crud/embedded`'],
      ['packages/fastify-mongo-crud/README.md', 'npm install fastify-mongo-crud fastify mongodb'],
    ]
    for (const [path, line] of lines) {
      const text = readText(path)
      const at = text.indexOf(line)
      assert.ok(at !== -1, `${path} has no line ${line}`)
      assert.match(text.slice(at, at + 300), /ESM only/, `${path} does not say beside ${line} that the package is ESM only`)
    }
  })
})
