// The HTML page served at GET /redoc. Everything it loads is served by this app:
// the ReDoc bundle from a local route, the OpenAPI document from /openapi.json, and
// system fonts only (ReDoc's usual HTML template pulls fonts from Google; this one doesn't).

interface RedocPageOptions {
  title: string
  specUrl: string
  scriptUrl: string
}

const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
const MONOSPACE_FONTS = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace'

/** ReDoc options: https://redocly.com/docs/redoc/config */
const REDOC_OPTIONS = {
  hideDownloadButton: false, // the download link points at the local /openapi.json
  theme: {
    typography: {
      fontFamily: SYSTEM_FONTS,
      headings: { fontFamily: SYSTEM_FONTS },
      code: { fontFamily: MONOSPACE_FONTS },
    },
  },
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char)
}

/** JSON that is safe inside an inline <script>: no `</script>`, no HTML comment openers. */
function toScriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

export function buildRedocPage(options: RedocPageOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc-container"></div>
<script src="${escapeHtml(options.scriptUrl)}"></script>
<script>
Redoc.init(${toScriptJson(options.specUrl)}, ${toScriptJson(REDOC_OPTIONS)}, document.getElementById('redoc-container'))
</script>
</body>
</html>
`
}
