// GET /admin (off by default: createApp({ admin: true })), its script and its style sheet. The page uses the
// app's public HTTP API and its OpenAPI document only (docs/admin.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type AdminAsset, type AdminAssetName, loadAdminAssets } from './admin-assets.js'
import { ADMIN_CSP, buildAdminPage } from './admin-page.js'

export const ADMIN_PATH = '/admin'
const IMMUTABLE = 'public, max-age=31536000, immutable'

interface AdminOptions {
  title: string
  openapiUrl: string
}

/** Headers of every answer of the page's routes: the policy, no sniffing, no referrer, no framing. */
function secured(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', ADMIN_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: AdminAsset): FastifyReply {
  const etag = `"${asset.hash}"`
  secured(reply).header('cache-control', IMMUTABLE).header('etag', etag).header('vary', 'accept-encoding')
  const match = request.headers['if-none-match']
  if (typeof match === 'string' && match.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send()
  reply.type(asset.type)
  const encodings = request.headers['accept-encoding']
  if (typeof encodings === 'string' && /\bgzip\b/.test(encodings)) return reply.header('content-encoding', 'gzip').send(asset.gzipped())
  return reply.send(asset.body)
}

export async function registerAdmin(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const assets = loadAdminAssets()
  const url = (name: AdminAssetName) => `${ADMIN_PATH}/${name}?v=${assets[name].hash}`
  const page = buildAdminPage({ title: options.title, openapiUrl: options.openapiUrl, scriptUrl: url('admin.js'), styleUrl: url('admin.css') })
  app.get(ADMIN_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return secured(reply).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page)
  })
  for (const name of Object.keys(assets) as AdminAssetName[]) {
    app.get(`${ADMIN_PATH}/${name}`, { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, assets[name]))
  }
}
