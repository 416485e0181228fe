import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * The package boundaries, read from the sources: the router knows the engine only through the
 * driver-shaped `Db` it is given; the engine's CLI is a client of the engine's public surface
 * (packages/embedded/src/index.ts), like any driver user; the wire server, which that surface
 * exports, reads the engine's modules directly (through the index it would import itself).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const ROUTER = join(ROOT, 'packages/fastify-mongo-crud')
const ENGINE_SRC = join(ROOT, 'packages/embedded/src')
const ENGINE_INDEX = join(ENGINE_SRC, 'index')

/** Module specifiers of `from '...'`, `import('...')` and bare `import '...'` (comments included: false alarms are cheap). */
const IMPORT = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s+['"]([^'"]+)['"]/g

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

export function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]!)
}

/** A relative specifier as the file it names, without its extension (`.js` in sources names a `.ts`). */
function target(file: string, specifier: string): string {
  return resolve(dirname(file), specifier).replace(/\.(js|ts|mjs|mts)$/, '')
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
}

/** Every `file: specifier` of the files under `dir` that `allowed` refuses. */
function offenders(dir: string, allowed: (file: string, specifier: string) => boolean): string[] {
  return sourceFiles(dir).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8'))
      .filter((specifier) => !allowed(file, specifier))
      .map((specifier) => `${relative(ROOT, file)}: '${specifier}'`)
  )
}

const isPackage = (specifier: string, name: string) => specifier === name || specifier.startsWith(`${name}/`)
const ENGINE_PACKAGES = ['@fastify-mongo-crud/embedded', 'lmdb', 'mingo']

describe('package boundaries', () => {
  it('the import parser finds static, re-exported, side-effect and dynamic imports', () => {
    const source = "import a from 'x'\nimport { b } from \"../y.js\"\nexport * from './z.js'\nimport 'w'\nconst c = await import('v')"
    assert.deepEqual(importsOf(source), ['x', '../y.js', './z.js', 'w', 'v'])
  })

  it('the router imports neither the engine, lmdb, mingo, nor a file outside its package', () => {
    const found = offenders(join(ROUTER, 'src'), (file, specifier) => {
      if (specifier.startsWith('.')) return isInside(ROUTER, target(file, specifier))
      return !ENGINE_PACKAGES.some((name) => isPackage(specifier, name))
    })
    assert.deepEqual(found, [])
  })

  it("the router's serve command is the one place that loads the engine, by a dynamic import of a computed name", () => {
    const naming = sourceFiles(join(ROUTER, 'src')).filter((file) => readFileSync(file, 'utf8').includes("'@fastify-mongo-crud/embedded'"))
    assert.deepEqual(naming.map((file) => relative(ROOT, file)), ['packages/fastify-mongo-crud/src/cli/open-database.ts'])
    assert.match(readFileSync(naming[0]!, 'utf8'), /await import\(embeddedPackage\)/)
  })

  it("the engine's cli/ imports only the engine's public index, its own files, mongodb and node:*", () => {
    const own = join(ENGINE_SRC, 'cli')
    const found = offenders(own, (file, specifier) => {
      if (specifier === 'mongodb' || specifier.startsWith('node:')) return true
      if (!specifier.startsWith('.')) return false
      const path = target(file, specifier)
      return path === ENGINE_INDEX || isInside(own, path)
    })
    assert.deepEqual(found, [])
  })

  it("the engine's wire/ imports the engine's modules but not its index (which exports the wire server), nor cli/; mongodb, SASLprep and node:*", () => {
    const found = offenders(join(ENGINE_SRC, 'wire'), (file, specifier) => {
      // SASLprep: the password normaliser the driver itself uses, so that both sides of a SCRAM login agree.
      if (specifier === 'mongodb' || specifier === '@mongodb-js/saslprep' || specifier.startsWith('node:')) return true
      if (!specifier.startsWith('.')) return false
      const path = target(file, specifier)
      return path !== ENGINE_INDEX && isInside(ENGINE_SRC, path) && !isInside(join(ENGINE_SRC, 'cli'), path)
    })
    assert.deepEqual(found, [])
  })

  it("no engine module but the CLI imports the engine's public index", () => {
    const found = offenders(ENGINE_SRC, (file, specifier) => isInside(join(ENGINE_SRC, 'cli'), file) || !specifier.startsWith('.') || target(file, specifier) !== ENGINE_INDEX)
    assert.deepEqual(found, [])
  })

  it('the router package depends on neither the engine, lmdb, mingo nor redoc (redoc may be a devDependency)', () => {
    const manifest = JSON.parse(readFileSync(join(ROUTER, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    const shipped = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {}).map((name) => `${field}: ${name}`))
    const refused = [...ENGINE_PACKAGES, 'redoc']
    assert.deepEqual(shipped.filter((entry) => refused.some((name) => isPackage(entry.split(': ')[1]!, name))), [])
  })
})
