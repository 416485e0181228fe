// GET /redoc (the page), plus the two local assets it needs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { loadRedocBundle, REDOC_LOGO_SVG, type RedocBundle } from './redoc-bundle.js'
import { buildRedocPage } from './redoc-page.js'

interface RedocRouteOptions {
  title: string
  specUrl: string
}

const PAGE_PATH = '/redoc'
const SCRIPT_PATH = '/redoc/redoc.standalone.js'
const LOGO_PATH = '/redoc/logo.svg'

const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'public, max-age=3600'

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding']
  return typeof header === 'string' && /\bgzip\b/.test(header)
}

function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match']
  return typeof header === 'string' && header.split(',').some((tag) => tag.trim() === etag)
}

function notModified(reply: FastifyReply, etag: string, cacheControl: string): FastifyReply {
  return reply.code(304).header('etag', etag).header('cache-control', cacheControl).send()
}

/** The bundle, its ETag and the page that loads it: made at the first request that needs them, not at every start. */
interface Redoc {
  bundle: RedocBundle
  scriptEtag: string
  page: string
}

export async function registerRedoc(app: FastifyInstance, options: RedocRouteOptions): Promise<void> {
  let loaded: Redoc | undefined
  const redoc = (): Redoc => {
    if (loaded === undefined) {
      // A megabyte read and hashed: most starts never serve it.
      const bundle = loadRedocBundle(LOGO_PATH)
      const page = buildRedocPage({ title: options.title, specUrl: options.specUrl, scriptUrl: `${SCRIPT_PATH}?v=${bundle.hash}` })
      loaded = { bundle, scriptEtag: `"${bundle.hash}"`, page }
    }
    return loaded
  }

  app.get(PAGE_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(redoc().page)
  })

  app.get(SCRIPT_PATH, { schema: { hide: true } }, async (request, reply) => {
    const { bundle, scriptEtag } = redoc()
    if (isFresh(request, scriptEtag)) return notModified(reply, scriptEtag, IMMUTABLE)
    reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', IMMUTABLE)
      .header('etag', scriptEtag)
      .header('vary', 'accept-encoding')
    if (acceptsGzip(request)) {
      return reply.header('content-encoding', 'gzip').send(bundle.gzipped())
    }
    return reply.send(bundle.body)
  })

  app.get(LOGO_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('image/svg+xml').header('cache-control', REVALIDATE).send(REDOC_LOGO_SVG)
  })
}
