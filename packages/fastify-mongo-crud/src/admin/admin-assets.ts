// The admin page's script and style sheet, bundled into assets/admin/ at build time (scripts/build-admin.mjs)
// from admin-ui/, read once when an app turns the page on.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { SetupError } from '../errors.js'

export interface AdminAsset {
  body: Buffer
  /** Short content hash: versions the asset's URL and serves as its ETag. */
  hash: string
  type: string
  gzipped(): Buffer
}

export const ADMIN_ASSET_FILES = { 'admin.js': 'application/javascript; charset=utf-8', 'admin.css': 'text/css; charset=utf-8' } as const
export type AdminAssetName = keyof typeof ADMIN_ASSET_FILES

/** assets/ sits beside src/ and dist/, so one relative path serves both. */
const assetUrl = (name: string) => new URL(`../../assets/admin/${name}`, import.meta.url)

function loadAsset(name: AdminAssetName): AdminAsset {
  const path = fileURLToPath(assetUrl(name))
  if (!existsSync(path)) {
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `createApp({ admin: true }): the admin page's ${name} is missing at ${path} (a package built without it: npm run build)`)
  }
  const body = readFileSync(path)
  let gzip: Buffer | undefined
  return {
    body,
    hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
    type: ADMIN_ASSET_FILES[name],
    gzipped() {
      gzip ??= gzipSync(body)
      return gzip
    },
  }
}

/** Both assets, read from disk once per call. */
export function loadAdminAssets(): Record<AdminAssetName, AdminAsset> {
  return { 'admin.js': loadAsset('admin.js'), 'admin.css': loadAsset('admin.css') }
}
