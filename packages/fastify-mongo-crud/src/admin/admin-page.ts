// The HTML of GET /admin: no inline script or style (the Content-Security-Policy forbids both), only the
// bundled script and style sheet of this app, and where the OpenAPI document is, in a data attribute.

interface AdminPageOptions {
  title: string
  openapiUrl: string
  scriptUrl: string
  styleUrl: string
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char)
}

/**
 * What the page may load and run: its own script and style sheet, requests to its own origin, nothing
 * inline, no framing, no form posts, no plugins.
 */
export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export function buildAdminPage(options: AdminPageOptions): string {
  return `<!DOCTYPE html>
<html lang="en" data-openapi="${escapeHtml(options.openapiUrl)}" data-title="${escapeHtml(options.title)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(options.title)}: admin</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(options.styleUrl)}">
<script defer src="${escapeHtml(options.scriptUrl)}"></script>
</head>
<body>
<noscript>The admin page needs JavaScript.</noscript>
</body>
</html>
`
}
