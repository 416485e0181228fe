// Builds the admin page's assets (docs/admin.md) from admin-ui/ into assets/admin/: the script bundled and
// minified by esbuild (a devDependency: nothing of it is installed with the package), the style sheet copied.
// Type-checked apart: tsc -p admin-ui/tsconfig.json (npm run typecheck at the root).
import { copyFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'assets', 'admin')
mkdirSync(out, { recursive: true })
await build({
  entryPoints: [join(root, 'admin-ui', 'src', 'main.ts')],
  outfile: join(out, 'admin.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome111', 'firefox111'],
  legalComments: 'none',
  logLevel: 'warning',
})
copyFileSync(join(root, 'admin-ui', 'admin.css'), join(out, 'admin.css'))
