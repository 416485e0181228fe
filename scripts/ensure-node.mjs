#!/usr/bin/env node
// Makes a given Node major available to CI without a system-wide install: npm's
// `node-<platform>-<arch>` package of that major goes into .cache/node-<major> (gitignored),
// once. Prints the directory of its `node` binary on stdout, so that
// `PATH="$(node scripts/ensure-node.mjs 22):$PATH" npm run test:unit` runs the tests on Node 22.
// Usage: node scripts/ensure-node.mjs <major>
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const major = process.argv[2]
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/ensure-node.mjs <major>   (for example 22)')
  process.exit(2)
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const prefix = join(root, '.cache', `node-${major}`)
const name = `node-${process.platform}-${process.arch}`
const bin = join(prefix, 'node_modules', name, 'bin')

if (!existsSync(join(bin, 'node'))) {
  mkdirSync(prefix, { recursive: true })
  // Its own prefix with its own package.json, so the workspace's lock file is never touched.
  const args = ['install', '--prefix', prefix, '--no-audit', '--no-fund', `${name}@${major}`]
  console.error(`ensure-node: $ npm ${args.join(' ')}`)
  // npm's own output goes to stderr: stdout carries only the directory, for `$(...)` in .ci/run.
  const result = spawnSync('npm', args, { stdio: ['ignore', process.stderr, 'inherit'] })
  if (result.error) throw result.error
  if (result.status !== 0) {
    console.error(`ensure-node: npm install of ${name}@${major} exited with status ${result.status ?? result.signal}`)
    process.exit(1)
  }
}

const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' })
if (version.status !== 0 || !version.stdout.startsWith(`v${major}.`)) {
  console.error(`ensure-node: ${join(bin, 'node')} does not run as Node ${major} (${version.stdout || version.stderr})`)
  process.exit(1)
}
console.log(bin)
