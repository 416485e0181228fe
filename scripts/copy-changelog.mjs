#!/usr/bin/env node
// The router package's `prepack`: its tarball carries the project's CHANGELOG.md (the root one is
// the only one written; the copy in packages/fastify-mongo-crud is gitignored).
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
copyFileSync(join(root, 'CHANGELOG.md'), join(root, 'packages', 'fastify-mongo-crud', 'CHANGELOG.md'))
