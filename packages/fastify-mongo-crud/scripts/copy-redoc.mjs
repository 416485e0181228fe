// Copies ReDoc's standalone bundle (and its licence) into assets/ at build time, so the published
// package serves /redoc from its own file: redoc, and the React it is built from, stay a
// devDependency instead of 85 MB in every user's node_modules.
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const assets = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets')
mkdirSync(assets, { recursive: true })
const bundle = require.resolve('redoc/bundles/redoc.standalone.js')
copyFileSync(bundle, join(assets, 'redoc.standalone.js'))
// ReDoc's own licence, and the notices of what its bundle contains.
copyFileSync(join(dirname(bundle), '..', 'LICENSE'), join(assets, 'redoc.LICENSE'))
copyFileSync(`${bundle}.LICENSE.txt`, join(assets, 'redoc.standalone.js.LICENSE.txt'))
