#!/usr/bin/env node
// Makes sure Debian's Chromium is present for the browser tests (test/browser).
// Runs as `pretest`. It never downloads a browser build: the only source is the
// distribution's `chromium` package, installed through apt-get when running as root.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = '/usr/bin/chromium'

function run(command, args) {
  console.log(`ensure-chromium: $ ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  if (result.error) throw result.error
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with status ${result.status ?? result.signal}`)
  }
}

function fail(message) {
  console.error(`ensure-chromium: ${message}`)
  process.exit(1)
}

if (existsSync(CHROMIUM)) {
  process.exit(0)
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
if (!isRoot) {
  fail(
    `${CHROMIUM} not found, and not running as root, so it cannot be installed here.\n` +
      'The browser tests need Debian\'s Chromium. Install it with:\n' +
      '  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium',
  )
}
if (!existsSync('/usr/bin/apt-get')) {
  fail(`${CHROMIUM} not found and apt-get is not available; install Chromium at ${CHROMIUM} by hand.`)
}

console.log(`ensure-chromium: ${CHROMIUM} not found; installing Debian's chromium package`)
try {
  run('apt-get', ['update'])
  run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'])
} catch (error) {
  fail(`installing chromium failed: ${error instanceof Error ? error.message : String(error)}`)
}
if (!existsSync(CHROMIUM)) {
  fail(`the chromium package was installed but ${CHROMIUM} is still missing`)
}
console.log(`ensure-chromium: installed ${CHROMIUM}`)
