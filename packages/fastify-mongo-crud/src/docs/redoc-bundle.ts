// ReDoc's standalone bundle, copied into assets/ at build time (scripts/copy-redoc.mjs), read once (at the
// first request of the docs page or its script: register-redoc.ts) and made
// offline-safe: its only network reference at runtime is the Redocly logo in the menu
// footer (loaded from cdn.redoc.ly, unconditionally). We point it at a local route.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg'

/** A neutral "document" glyph shown where ReDoc puts the Redocly logo. */
export const REDOC_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16">
<path fill="none" stroke="#32329f" stroke-width="1.5" d="M3.75 1.75h5.5l3 3v9.5h-8.5z M9.25 1.75v3h3 M5.5 8h5 M5.5 10.5h5"/>
</svg>
`

export interface RedocBundle {
  body: Buffer
  /** Short content hash: versions the script URL and serves as the ETag. */
  hash: string
  gzipped(): Buffer
}

/** assets/ sits beside src/ and dist/, so one relative path serves both. */
function resolveRedocBundlePath(): string {
  return fileURLToPath(new URL('../../assets/redoc.standalone.js', import.meta.url))
}

export function loadRedocBundle(logoUrl: string): RedocBundle {
  const source = readFileSync(resolveRedocBundlePath(), 'utf8')
  const body = Buffer.from(source.replaceAll(REDOC_CDN_LOGO, logoUrl), 'utf8')
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16)
  let gzip: Buffer | undefined
  return {
    body,
    hash,
    gzipped() {
      gzip ??= gzipSync(body)
      return gzip
    },
  }
}
