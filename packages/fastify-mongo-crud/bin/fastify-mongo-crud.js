#!/usr/bin/env node
// npm links a package's commands when it installs the package, and in a clone of this repository that is
// before `npm run build` writes dist/: a link to dist/cli/main.js would be skipped then, and the command
// would not exist after the build either. So the command is this file, which exists from the start.
import { existsSync } from 'node:fs'
import module from 'node:module'

// Node 22.1 and later keep the code they compile on disk (in the OS's temporary directory, or where
// NODE_COMPILE_CACHE says; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a start after the first one
// skips compiling the modules it loads again. Before the import below, so that it covers them all.
module.enableCompileCache?.()

const main = new URL('../dist/cli/main.js', import.meta.url)
if (existsSync(main)) {
  await import(main.href)
} else {
  console.error('fastify-mongo-crud: the package is not built yet (dist/cli/main.js is missing): run `npm run build`')
  process.exitCode = 1
}
