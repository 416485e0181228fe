#!/usr/bin/env node
// What a new user installs: packs the workspace packages (`npm pack`), installs them into empty
// projects in a temporary directory, and prints, for each, the size of node_modules (`du -sb`),
// the number of packages, of native modules (*.node files) and whether React came along.
// "before" is the single package of the commit before the workspace move (6cb798d~1), checked
// out as a git worktree, installed, built and packed the same way.
// Run by hand (needs the registry, takes minutes): npm run build && node scripts/install-size.mjs
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BEFORE_COMMIT = '6cb798d~1'
const work = mkdtempSync(join(tmpdir(), 'fmc-install-size-'))
const packs = join(work, 'packs')
mkdirSync(packs)

function run(command, args, cwd) {
  console.error(`install-size: (${cwd}) $ ${command} ${args.join(' ')}`)
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
}

/** Packs the package in `dir` into `packs/` and returns the tarball's path. */
function pack(dir) {
  const [{ filename }] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', packs], dir))
  return join(packs, filename)
}

/** The installed tree of an empty project after `npm install <specs>`. */
function installInto(name, specs) {
  const project = join(work, name)
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name, version: '0.0.0', private: true })}\n`)
  run('npm', ['install', '--no-audit', '--no-fund', ...specs], project)
  return measure(join(project, 'node_modules'))
}

function measure(nodeModules) {
  const bytes = Number(run('du', ['-sb', nodeModules], work).split('\t')[0])
  let packages = 0
  let natives = 0
  const walk = (dir, isModulesDir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (isModulesDir && !entry.name.startsWith('.') && !entry.name.startsWith('@')) packages++
        walk(path, entry.name === 'node_modules' || (isModulesDir && entry.name.startsWith('@')))
      } else if (entry.isFile() && entry.name.endsWith('.node')) {
        natives++
      }
    }
  }
  walk(nodeModules, true)
  return { bytes, packages, natives, react: existsSync(join(nodeModules, 'react')) }
}

try {
  const linearRegex = pack(join(root, 'packages/linear-regex'))
  const router = pack(join(root, 'packages/fastify-mongo-crud'))
  const embedded = pack(join(root, 'packages/embedded'))
  // The router's and the engine's dependency on @fastify-mongo-crud/linear-regex is satisfied by its
  // tarball (it is not published yet); fastify and mongodb are the router's peers, a user installs them.
  const rows = [
    ['the peers alone (fastify, mongodb), for comparison', installInto('peers', ['fastify@5', 'mongodb@7'])],
    ['after: router (fastify-mongo-crud)', installInto('router', [router, linearRegex, 'fastify@5', 'mongodb@7'])],
    [
      'after: router + engine (@fastify-mongo-crud/embedded)',
      installInto('router-embedded', [router, embedded, linearRegex, 'fastify@5', 'mongodb@7']),
    ],
  ]

  const before = join(work, 'before-worktree')
  run('git', ['worktree', 'add', '--detach', before, BEFORE_COMMIT], root)
  try {
    run('npm', ['install', '--no-audit', '--no-fund'], before)
    run('npm', ['run', 'build'], before)
    rows.unshift(['before: fastify-mongo-crud 0.1.0 (one package)', installInto('before', [pack(before)])])
  } finally {
    run('git', ['worktree', 'remove', '--force', before], root)
  }

  const mb = (bytes) => (bytes / 1e6).toFixed(1)
  console.log('| install | node_modules (du -sb) | packages | native modules (*.node) | react |')
  console.log('|---|---:|---:|---:|---|')
  for (const [name, m] of rows) {
    console.log(`| ${name} | ${mb(m.bytes)} MB (${m.bytes} B) | ${m.packages} | ${m.natives} | ${m.react ? 'yes' : 'no'} |`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
